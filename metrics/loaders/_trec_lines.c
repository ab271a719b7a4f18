/* Reading the lines of a TREC run or qrels file in C (metrics/loaders/trec_lines.py is its Python
 * side; metrics/loaders/fast.py holds the polars reader that gives the same columns where this one
 * declines, and the rules both follow).
 *
 * `scan` reads a block of whole lines ("query Q0 item rank score tag", or "query 0 item grade")
 * in one pass: the runs of equal query ids (their first line and byte), each item's bytes copied
 * end to end with their offsets and a 64-bit key, each score as float64 (or grade as int64), and
 * whether every line has the first line's tag. It accepts only what the polars fast reader
 * accepts without doubt and returns None for anything else, so that the caller reads that block
 * the slow way: exactly the layout's fields on every line, one delimiter between them, no field
 * empty, no byte at or below 0x20 in a field (no other whitespace, no control byte, no carriage
 * return), no query id that starts with '#', a grade written as a whole number of at most 18
 * digits, and a score written as a decimal number with an optional exponent that is finite.
 * Scores are rounded correctly (the value nearest the decimal, as Python's float() and polars
 * give): exactly, when the digits fit in 53 bits and the power of ten is exact (one rounding),
 * else by the C library's strtod in the "C" locale (correctly rounded in glibc and macOS); where
 * that is not available such a score makes the block decline.
 *
 * `hash_spans` gives other ids the same keys as `scan` gives items, `repeats_within_runs` says
 * whether any run of rows holds a key twice, `take` makes Python strings of some items,
 * `same_items` compares items of two columns, and `judged_lookup` finds the judged pairs among
 * retrieved ones (whatever made the keys).
 *
 * No NumPy headers: arrays arrive through the buffer protocol and their sizes are checked; the
 * GIL is released while a block is scanned, so that reading overlaps judging on another thread.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__) || defined(__APPLE__)
#include <locale.h>
#ifdef __APPLE__
#include <xlocale.h>
#endif
#define HAVE_STRTOD_L 1
static locale_t c_locale = (locale_t)0;
#endif

/* One rounding of an exact integer by an exact power of ten is the correctly rounded value only
 * when double arithmetic is done in double precision (not x87's extended precision). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define EXACT_FAST_PATH 1
#endif

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#define LONGEST_SCORE 128   /* bytes of a score given to strtod; longer ones decline */

/* The score in p[0:n]; 0 when read, -1 when it is not a finite decimal number (or cannot be
 * rounded correctly here). */
static int
parse_score(const unsigned char *p, Py_ssize_t n, double *out)
{
    const unsigned char *s = p, *end = p + n;
    int negative = 0, significant = 0, digits = 0;
    uint64_t mantissa = 0;
    long exponent = 0, written = 0;

    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        digits++;
        if (mantissa || *p != '0') {
            if (significant < 19)
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            else
                exponent++;
            significant++;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            digits++;
            if (mantissa || *p != '0') {
                if (significant < 19) {
                    mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                    exponent--;
                }
                significant++;
            }
            else
                exponent--;
        }
    }
    if (!digits)
        return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int minus = 0, exponent_digits = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            minus = *p == '-';
            p++;
        }
        for (; p < end && *p >= '0' && *p <= '9'; p++, exponent_digits++)
            if (written < 100000)
                written = written * 10 + (*p - '0');
        if (!exponent_digits)
            return -1;
        exponent += minus ? -written : written;
    }
    if (p != end)
        return -1;
    if (!mantissa) {
        *out = negative ? -0.0 : 0.0;
        return 0;
    }
#ifdef EXACT_FAST_PATH
    if (significant <= 19 && mantissa <= ((uint64_t)1 << 53) && exponent >= -22 &&
        exponent <= 22) {
        double value = (double)mantissa;
        value = exponent < 0 ? value / POW10[-exponent] : value * POW10[exponent];
        *out = negative ? -value : value;
        return 0;
    }
#endif
#ifdef HAVE_STRTOD_L
    {
        char text[LONGEST_SCORE + 1];
        char *stop;
        double value;
        if (n > LONGEST_SCORE || c_locale == (locale_t)0)
            return -1;
        memcpy(text, s, (size_t)n);
        text[n] = '\0';
        value = strtod_l(text, &stop, c_locale);
        if (stop != text + n || !isfinite(value))
            return -1;
        *out = value;
        return 0;
    }
#else
    (void)s;
    return -1;
#endif
}

static inline uint64_t
finish_key(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* The 64-bit key of some bytes: equal bytes give equal keys; unequal ones collide rarely, and
 * every match of keys is confirmed on the bytes by the callers. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORDS_LITTLE_ENDIAN 1   /* bytes read eight at a time (a word's first byte is its lowest) */
#endif

/* The tail of an id (1 to 7 bytes) as a word, its bytes low, zero above: one load and a mask
 * when eight bytes can be read there (the buffer goes on to `limit`). */
static inline uint64_t
tail_word(const unsigned char *p, Py_ssize_t n, const unsigned char *limit)
{
    uint64_t word = 0;
#ifdef WORDS_LITTLE_ENDIAN
    if (p + 8 <= limit) {
        memcpy(&word, p, 8);
        return word & (~(uint64_t)0 >> (64 - 8 * n));
    }
#endif
    memcpy(&word, p, (size_t)n);
    return word;
}

/* The 64-bit key of the n bytes at p: equal bytes give equal keys; unequal ones collide rarely,
 * and every match of keys is confirmed on the bytes by the callers. */
static inline uint64_t
key_of(const unsigned char *p, Py_ssize_t n, const unsigned char *limit)
{
    uint64_t h = 0x5EED ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL), word;
    while (n >= 8) {
        memcpy(&word, p, 8);
        h ^= word * 0x87c37b91114253d5ULL;
        h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
        p += 8;
        n -= 8;
    }
    if (n) {
        word = tail_word(p, n, limit);
        h ^= word * 0x87c37b91114253d5ULL;
        h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
    }
    return finish_key(h);
}

/* Whether the n bytes at a and at b are the same (short ids: no call) */
static inline int
same_bytes(const unsigned char *a, const unsigned char *b, Py_ssize_t n)
{
    uint64_t x, y;
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return 0;
    }
    for (; n > 0; a++, b++, n--)
        if (*a != *b)
            return 0;
    return 1;
}

static inline int
lowest_bit(uint64_t mask)   /* of a mask that is not 0 */
{
#if defined(__GNUC__)
    return __builtin_ctzll(mask);
#else
    int at = 0;
    while (!(mask & 1)) {
        mask >>= 1;
        at++;
    }
    return at;
#endif
}

/* The separators of a block, in order: every byte at or below 0x20 (a delimiter, a line end, or
 * a byte no field holds). They are found 64 bytes at a time as a mask (with SSE2, four compares),
 * and taken one by one from its lowest bit: a line's six separators cost no mispredicted branch
 * per field. The bytes looked at are or-ed into `seen` (their top bits show non-ASCII). */
typedef struct {
    const unsigned char *b;
    Py_ssize_t len, base;   /* the mask covers b[base:base + 64] */
    uint64_t mask, seen;
} Separators;

static inline void
separators_load(Separators *s)
{
    const unsigned char *at = s->b + s->base;
    uint64_t mask = 0;
#if defined(__SSE2__) && defined(__GNUC__)
    if (s->base + 64 <= s->len) {
        const __m128i top = _mm_set1_epi8(0x20);
        uint64_t high = 0;
        for (int i = 0; i < 4; i++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(at + 16 * i));
            __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, top), v);   /* v <= 0x20 */
            mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(low) << (16 * i);
            high |= (uint64_t)(uint16_t)_mm_movemask_epi8(v);
        }
        s->seen |= high ? 0x80 : 0;
        s->mask = mask;
        return;
    }
#endif
    Py_ssize_t n = s->len - s->base < 64 ? s->len - s->base : 64;
    for (Py_ssize_t i = 0; i < n; i++) {
        s->seen |= at[i];
        if (at[i] <= 0x20)
            mask |= (uint64_t)1 << i;
    }
    s->mask = mask;
}

/* The next separator's position, or len when there is none */
static inline Py_ssize_t
separators_next(Separators *s)
{
    while (!s->mask) {
        s->base += 64;
        if (s->base >= s->len)
            return s->len;
        separators_load(s);
    }
    Py_ssize_t at = s->base + lowest_bit(s->mask);
    s->mask &= s->mask - 1;
    return at;
}

/* Each of `count` buffers (Py_buffer *) released */
static void
release_buffers(int count, ...)
{
    va_list buffers;
    va_start(buffers, count);
    for (int i = 0; i < count; i++)
        PyBuffer_Release(va_arg(buffers, Py_buffer *));
    va_end(buffers);
}

static int
fits(Py_buffer *view, Py_ssize_t count, Py_ssize_t size, const char *what)
{
    if (view->len < count * size) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, %zd needed", what, view->len,
                     count * size);
        return 0;
    }
    return 1;
}

#define MOST_FIELDS 8

/* A whole number in p[0:n] (an optional sign and 1 to 18 digits: exact in 64 bits); 0 when
 * read, -1 when it is written otherwise (the slower readers then read it, or refuse it). */
static int
parse_integer(const unsigned char *p, Py_ssize_t n, int64_t *out)
{
    const unsigned char *end = p + n;
    int negative = 0;
    int64_t value = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    if (p == end || end - p > 18)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        value = value * 10 + (*p - '0');
    }
    *out = negative ? -value : value;
    return 0;
}

/* What scan says of each run of lines of one query (its flags): */
#define NOT_DESCENDING 1           /* a score not strictly below the one before, as float64 */
#define NOT_DESCENDING_FLOAT32 2   /* ... as float32 (the trec9 policy compares float32) */
#define REPEATED_KEY 4             /* an item key the run already had */

/* The keys of one run of lines, in an open-addressing table stamped per run (never cleared),
 * grown when the run outgrows half of it. */
typedef struct {
    uint64_t *key;
    uint32_t *stamp;
    size_t size;
    uint32_t now;
    Py_ssize_t count;
} KeySet;

static int
keyset_grow(KeySet *set, size_t size)
{
    uint64_t *key = realloc(set->key, size * sizeof(uint64_t));
    if (!key)
        return -1;
    set->key = key;
    uint32_t *stamp = realloc(set->stamp, size * sizeof(uint32_t));
    if (!stamp)
        return -1;
    set->stamp = stamp;
    memset(set->stamp, 0, size * sizeof(uint32_t));
    set->size = size;
    set->now = 1;
    set->count = 0;
    return 0;
}

static void
keyset_next_run(KeySet *set)
{
    if (++set->now == 0) {
        memset(set->stamp, 0, set->size * sizeof(uint32_t));
        set->now = 1;
    }
    set->count = 0;
}

/* 1 when the key was in the set already, else 0 (and it is added) */
static inline int
keyset_add(KeySet *set, uint64_t k)
{
    size_t mask = set->size - 1, slot = (size_t)(k ^ (k >> 29)) & mask;
    while (set->stamp[slot] == set->now) {
        if (set->key[slot] == k)
            return 1;
        slot = (slot + 1) & mask;
    }
    set->stamp[slot] = set->now;
    set->key[slot] = k;
    set->count++;
    return 0;
}

/* scan(block, delimiter, (fields, number field, integer, tag field), capacity, numbers, keys,
 *      item_ends, item_bytes, run_lines, run_bytes, run_flags)
 *   -> (lines, bytes of items, the queries' ids, the tag, ASCII) or None
 * The layout: the number of fields per line (a run's six, a qrels file's four), the query id
 * first and the item id third, the field of the number (a run's score, as float64, or with
 * `integer` a qrels file's grade, as int64) and of the tag (-1: none). Runs are flagged only
 * for scores.
 * The arrays hold `capacity` entries (item_ends one more: entry 0 is left as it is); for a block
 * of more lines the result is -1 (a field has a byte at least and a delimiter or line end after
 * it, so a block of n bytes has at most (n + 1) / (2 * fields) lines). The last value says whether every byte is ASCII: when not, the caller
 * checks that the text has no Unicode spaces before it takes the block. Each run of lines of one
 * query gets its first line, its first byte and its flags (above), and its id as a str in the
 * list of ids; the tag is every line's tag, or None when they differ. */
static PyObject *
scan(PyObject *self, PyObject *args)
{
    Py_buffer block, scores, keys, item_ends, item_bytes, run_lines, run_bytes, run_flags;
    int delimiter;
    Py_ssize_t lines;
    Py_ssize_t line = 0, runs = 0, used = 0, tag_start = 0, tag_length = 0;
    int same_tag = 1, declined = 0, out_of_memory = 0, too_many = 0;
    unsigned char seen = 0;   /* every byte of every field, or-ed: its top bit is non-ASCII */
    KeySet set = {NULL, NULL, 0, 0, 0};
    PyObject *result = NULL;

    int fields, number_field, integer, tag_field;
    if (!PyArg_ParseTuple(args, "y*C(iiii)nw*w*w*w*w*w*w*", &block, &delimiter, &fields,
                          &number_field, &integer, &tag_field, &lines, &scores, &keys,
                          &item_ends, &item_bytes, &run_lines, &run_bytes, &run_flags))
        return NULL;
    if (fields < 3 || fields > MOST_FIELDS || number_field < 3 || number_field >= fields ||
        tag_field >= fields || (tag_field >= 0 && tag_field < 3)) {
        PyErr_SetString(PyExc_ValueError, "not a layout of a TREC file");
        goto done;
    }
    if (!fits(&scores, lines, 8, "scores") || !fits(&keys, lines, 8, "keys") ||
        !fits(&item_ends, lines + 1, 8, "item_ends") ||
        !fits(&item_bytes, block.len, 1, "item_bytes") ||
        !fits(&run_lines, lines, 8, "run_lines") || !fits(&run_bytes, lines, 8, "run_bytes") ||
        !fits(&run_flags, lines, 1, "run_flags"))
        goto done;
    if (keyset_grow(&set, 4096)) {
        PyErr_NoMemory();
        goto done;
    }

    Py_BEGIN_ALLOW_THREADS
    {
        const unsigned char *b = (const unsigned char *)block.buf;
        const Py_ssize_t len = block.len;
        const unsigned char cut = (unsigned char)delimiter;
        Separators separators = {b, len, 0, 0, 0};
        if (len)
            separators_load(&separators);
        double *score = (double *)scores.buf;
        uint64_t *key = (uint64_t *)keys.buf;
        int64_t *end_of_item = (int64_t *)item_ends.buf + 1;
        unsigned char *items = (unsigned char *)item_bytes.buf, *flags = run_flags.buf;
        int64_t *run_line = (int64_t *)run_lines.buf, *run_byte = (int64_t *)run_bytes.buf;
        Py_ssize_t pos = 0, query_start = 0, query_length = -1;
        double last = 0;
        float last32 = 0;

        while (pos < len) {
            Py_ssize_t start[MOST_FIELDS], stop[MOST_FIELDS];
            if (line >= lines) {
                too_many = 1;   /* more lines than the arrays hold: the caller gives more room */
                break;
            }
            for (int f = 0; f < fields; f++) {
                Py_ssize_t p = separators_next(&separators);
                if (p == pos || (f < fields - 1 ? (p == len || b[p] != cut)
                                       : (p < len && b[p] != '\n'))) {
                    declined = 1;   /* an empty field, a stray byte, too few or many fields */
                    break;
                }
                start[f] = pos;
                stop[f] = p;
                pos = p + 1;
            }
            if (declined)
                break;
            int new_run;
            {
                Py_ssize_t n = stop[0] - start[0];
                new_run = n != query_length || !same_bytes(b + start[0], b + query_start, n);
                if (new_run) {
                    if (b[start[0]] == '#') {
                        declined = 1;   /* a comment: the careful reader's */
                        break;
                    }
                    run_line[runs] = line;
                    run_byte[runs] = start[0];
                    flags[runs] = 0;
                    runs++;
                    query_start = start[0];
                    query_length = n;
                    keyset_next_run(&set);
                }
            }
            {
                Py_ssize_t n = stop[2] - start[2];
                uint64_t k = key_of(b + start[2], n, b + len);
                key[line] = k;
                memcpy(items + used, b + start[2], (size_t)n);
                used += n;
                end_of_item[line] = used;
                if (2 * (size_t)(set.count + 1) > set.size) {   /* the run outgrew the table */
                    if (keyset_grow(&set, 2 * set.size)) {
                        out_of_memory = 1;
                        break;
                    }
                    for (Py_ssize_t i = run_line[runs - 1]; i < line; i++)
                        keyset_add(&set, key[i]);
                }
                if (keyset_add(&set, k))
                    flags[runs - 1] |= REPEATED_KEY;
            }
            if (integer) {
                if (parse_integer(b + start[number_field], stop[number_field] - start[number_field],
                                  (int64_t *)score + line)) {
                    declined = 1;
                    break;
                }
            }
            else if (parse_score(b + start[number_field], stop[number_field] - start[number_field],
                                 score + line)) {
                declined = 1;
                break;
            }
            if (!integer) {
                double now = score[line];
                float now32 = (float)now;
                if (!new_run) {
                    if (!(now < last))
                        flags[runs - 1] |= NOT_DESCENDING;
                    if (!(now32 < last32))
                        flags[runs - 1] |= NOT_DESCENDING_FLOAT32;
                }
                last = now;
                last32 = now32;
            }
            if (tag_field >= 0) {
                Py_ssize_t n = stop[tag_field] - start[tag_field];
                if (!line) {
                    tag_start = start[tag_field];
                    tag_length = n;
                }
                else if (same_tag && (n != tag_length ||
                                      !same_bytes(b + start[tag_field], b + tag_start, n)))
                    same_tag = 0;
            }
            line++;
        }
        seen = (unsigned char)(separators.seen & 0x80);
    }
    Py_END_ALLOW_THREADS

    if (out_of_memory)
        PyErr_NoMemory();
    else if (too_many)
        result = PyLong_FromLong(-1);
    else if (declined) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
    else {   /* the queries' ids and the tag as text; bytes that are not UTF-8 decline */
        const char *b = (const char *)block.buf, cut = (char)delimiter;
        PyObject *names = PyList_New(runs), *tag = NULL;
        for (Py_ssize_t r = 0; names && r < runs; r++) {
            const int64_t at = ((int64_t *)run_bytes.buf)[r];
            const char *end = memchr(b + at, cut, (size_t)(block.len - at));
            PyObject *name = PyUnicode_DecodeUTF8(b + at, end - (b + at), "strict");
            if (!name)
                Py_CLEAR(names);
            else
                PyList_SET_ITEM(names, r, name);
        }
        if (names && same_tag && line && tag_field >= 0)
            tag = PyUnicode_DecodeUTF8(b + tag_start, tag_length, "strict");
        else if (names) {
            tag = Py_None;
            Py_INCREF(tag);
        }
        if (names && tag)
            result = Py_BuildValue("nnNNO", line, used, names, tag,
                                   seen & 0x80 ? Py_False : Py_True);
        else {
            Py_XDECREF(names);
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                goto done;
            PyErr_Clear();
            Py_INCREF(Py_None);
            result = Py_None;
        }
    }
done:
    free(set.key);
    free(set.stamp);
    release_buffers(8, &block, &scores, &keys, &item_ends, &item_bytes, &run_lines, &run_bytes,
                    &run_flags);
    return result;
}

/* hash_spans(data, offsets, keys): keys[i] is the key of data[offsets[i]:offsets[i + 1]], as
 * scan gives items (for ids read another way: a ground truth's, a block the C reader declined) */
static PyObject *
hash_spans(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets, keys;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*w*", &data, &offsets, &keys))
        return NULL;
    Py_ssize_t n = offsets.len / 8 - 1;
    const int64_t *offset = (const int64_t *)offsets.buf;
    if (n >= 0 && fits(&keys, n, 8, "keys")) {
        int bad = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (offset[i] < 0 || offset[i] > offset[i + 1] || offset[i + 1] > data.len)
                bad = 1;
        if (bad)
            PyErr_SetString(PyExc_ValueError, "an offset is out of range");
        else {
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t i = 0; i < n; i++)
                ((uint64_t *)keys.buf)[i] = key_of((const unsigned char *)data.buf + offset[i],
                                                   offset[i + 1] - offset[i],
                                                   (const unsigned char *)data.buf + data.len);
            Py_END_ALLOW_THREADS
            Py_INCREF(Py_None);
            result = Py_None;
        }
    }
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "no offsets");
    release_buffers(3, &data, &offsets, &keys);
    return result;
}

/* repeats_within_runs(keys, lengths) -> bool: whether some run of consecutive rows (lengths
 * give the runs) holds the same key twice. One small table, stamped per run so that it is
 * never cleared. */
static PyObject *
repeats_within_runs(PyObject *self, PyObject *args)
{
    Py_buffer keys, lengths;
    int repeated = 0, failed = 0;
    if (!PyArg_ParseTuple(args, "y*y*", &keys, &lengths))
        return NULL;
    Py_ssize_t runs = lengths.len / 8, rows = keys.len / 8, longest = 0, total = 0;
    const int64_t *length = (const int64_t *)lengths.buf;
    for (Py_ssize_t r = 0; r < runs; r++) {
        if (length[r] < 0) {
            failed = 1;
            break;
        }
        total += length[r];
        if (length[r] > longest)
            longest = length[r];
    }
    if (failed || total != rows) {
        release_buffers(2, &keys, &lengths);
        PyErr_SetString(PyExc_ValueError, "the runs' lengths do not add up to the keys");
        return NULL;
    }
    size_t size = 16;
    while (size < 2 * (size_t)longest)
        size <<= 1;
    uint64_t *table = malloc(size * sizeof(uint64_t));
    uint32_t *stamp = calloc(size, sizeof(uint32_t));
    if (!table || !stamp) {
        free(table);
        free(stamp);
        release_buffers(2, &keys, &lengths);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    {
        const uint64_t *key = (const uint64_t *)keys.buf;
        const size_t mask = size - 1;
        Py_ssize_t row = 0;
        uint32_t now = 0;
        for (Py_ssize_t r = 0; r < runs && !repeated; r++) {
            if (++now == 0) {   /* stamps wrapped around: start the table afresh */
                memset(stamp, 0, size * sizeof(uint32_t));
                now = 1;
            }
            for (Py_ssize_t i = 0; i < length[r]; i++, row++) {
                size_t slot = (size_t)(key[row] ^ (key[row] >> 29)) & mask;
                while (stamp[slot] == now && table[slot] != key[row])
                    slot = (slot + 1) & mask;
                if (stamp[slot] == now) {
                    repeated = 1;
                    break;
                }
                stamp[slot] = now;
                table[slot] = key[row];
            }
        }
    }
    Py_END_ALLOW_THREADS
    free(table);
    free(stamp);
    release_buffers(2, &keys, &lengths);
    return PyBool_FromLong(repeated);
}

/* take(data, offsets, positions) -> list of str: item i is data[offsets[i]:offsets[i + 1]] */
static PyObject *
take(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets, positions;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*", &data, &offsets, &positions))
        return NULL;
    Py_ssize_t items = offsets.len / 8 - 1, n = positions.len / 8;
    const int64_t *offset = (const int64_t *)offsets.buf, *position = (const int64_t *)positions.buf;
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        int64_t p = position[i];
        PyObject *text;
        if (p < 0 || p >= items || offset[p] < 0 || offset[p] > offset[p + 1] ||
            offset[p + 1] > data.len) {
            PyErr_SetString(PyExc_IndexError, "an item position or offset is out of range");
            Py_CLEAR(out);
            break;
        }
        text = PyUnicode_DecodeUTF8((const char *)data.buf + offset[p],
                                    (Py_ssize_t)(offset[p + 1] - offset[p]), "strict");
        if (!text) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, text);
    }
    release_buffers(3, &data, &offsets, &positions);
    return out;
}

/* judged_lookup(item_keys, rows, run_first, run_length, run_truth, start, judged_keys, found,
 *               place) -> found count
 * The judged pairs among retrieved ones (metrics.ranking.judged_lookup): the judged items of
 * truth query j have the keys judged_keys[start[j]:start[j + 1]] (no two alike). Positions
 * run_first[r] .. run_first[r] + run_length[r] - 1 are retrieved for truth query run_truth[r]
 * (none when it is negative); position i holds the item item_keys[rows[i]] (rows: an empty
 * buffer when position i holds item i). Each run's judged keys go into a small table (a few slots
 * per judged item, in cache), and each position is one look-up there: for a match, the position
 * goes into found (ascending when the runs are) and the judged key's position into place. */
static PyObject *
judged_lookup(PyObject *self, PyObject *args)
{
    Py_buffer item_keys, rows, run_first, run_length, run_truth, start, judged_keys, found, place;
    int bad = 0;
    Py_ssize_t count = 0;
    PyObject *result = NULL;
    uint64_t *table = NULL;
    int64_t *entry = NULL;
    uint32_t *stamp = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*w*w*", &item_keys, &rows, &run_first, &run_length,
                          &run_truth, &start, &judged_keys, &found, &place))
        return NULL;
    Py_ssize_t items = item_keys.len / 8, n_rows = rows.len / 8, runs = run_first.len / 8,
               queries = start.len / 8 - 1, judged = judged_keys.len / 8, most = 0,
               positions = found.len / 8;
    const int64_t *first = (const int64_t *)start.buf, *run_at = (const int64_t *)run_first.buf,
                  *run_size = (const int64_t *)run_length.buf,
                  *run_query = (const int64_t *)run_truth.buf;
    if (queries < 0 || !fits(&run_length, runs, 8, "run_length") ||
        !fits(&run_truth, runs, 8, "run_truth") || !fits(&place, positions, 8, "place"))
        goto done;
    for (Py_ssize_t j = 0; j < queries; j++) {
        if (first[j] < 0 || first[j] > first[j + 1] || first[j + 1] > judged) {
            PyErr_SetString(PyExc_ValueError, "the judged keys' query starts are out of order");
            goto done;
        }
        if (first[j + 1] - first[j] > most)
            most = first[j + 1] - first[j];
    }
    for (Py_ssize_t r = 0; r < runs; r++)
        if (run_at[r] < 0 || run_size[r] < 0 || run_at[r] + run_size[r] > positions ||
            (n_rows && run_at[r] + run_size[r] > n_rows) || run_query[r] >= queries) {
            PyErr_SetString(PyExc_IndexError, "a run is out of range");
            goto done;
        }
    size_t size = 8;
    while (size < 4 * (size_t)most)
        size <<= 1;
    table = malloc(size * sizeof(uint64_t));
    entry = malloc(size * sizeof(int64_t));
    stamp = calloc(size, sizeof(uint32_t));
    if (!table || !entry || !stamp) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    {
        const uint64_t *key = (const uint64_t *)item_keys.buf,
                       *judged_key = (const uint64_t *)judged_keys.buf;
        const int64_t *row = n_rows ? (const int64_t *)rows.buf : NULL;
        int64_t *found_at = (int64_t *)found.buf, *found_place = (int64_t *)place.buf;
        const size_t mask = size - 1;
        uint32_t now = 0;
        for (Py_ssize_t r = 0; r < runs && !bad; r++) {
            int64_t q = run_query[r];
            if (q < 0 || first[q] == first[q + 1])
                continue;
            if (++now == 0) {
                memset(stamp, 0, size * sizeof(uint32_t));
                now = 1;
            }
            for (int64_t at = first[q]; at < first[q + 1]; at++) {
                size_t slot = (size_t)(judged_key[at] ^ (judged_key[at] >> 29)) & mask;
                while (stamp[slot] == now)
                    slot = (slot + 1) & mask;
                stamp[slot] = now;
                table[slot] = judged_key[at];
                entry[slot] = at;
            }
            for (int64_t i = run_at[r]; i < run_at[r] + run_size[r]; i++) {
                int64_t item = row ? row[i] : i;
                if (item < 0 || item >= items) {
                    bad = 1;
                    break;
                }
                uint64_t k = key[item];
                size_t slot = (size_t)(k ^ (k >> 29)) & mask;
                while (stamp[slot] == now && table[slot] != k)
                    slot = (slot + 1) & mask;
                if (stamp[slot] == now) {
                    found_at[count] = i;
                    found_place[count++] = entry[slot];
                }
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad)
        PyErr_SetString(PyExc_IndexError, "an item row is out of range");
    else
        result = PyLong_FromSsize_t(count);
done:
    free(table);
    free(entry);
    free(stamp);
    release_buffers(9, &item_keys, &rows, &run_first, &run_length, &run_truth, &start,
                    &judged_keys, &found, &place);
    return result;
}

/* same_items(data, offsets, positions, other_data, other_offsets, other_positions, out):
 * out[i] = whether item positions[i] of one column (item j is data[offsets[j]:offsets[j + 1]]) is
 * the same bytes as item other_positions[i] of the other */
static PyObject *
same_items(PyObject *self, PyObject *args)
{
    Py_buffer data, offsets, positions, other_data, other_offsets, other_positions, out;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*w*", &data, &offsets, &positions, &other_data,
                          &other_offsets, &other_positions, &out))
        return NULL;
    Py_ssize_t n = positions.len / 8, items = offsets.len / 8 - 1,
               other_items = other_offsets.len / 8 - 1;
    const int64_t *at = positions.buf, *other_at = other_positions.buf, *offset = offsets.buf,
                  *other_offset = other_offsets.buf;
    int bad = !fits(&other_positions, n, 8, "other_positions") || !fits(&out, n, 1, "out");
    for (Py_ssize_t i = 0; !bad && i < n; i++) {
        int64_t p = at[i], q = other_at[i];
        if (p < 0 || p >= items || q < 0 || q >= other_items || offset[p] < 0 ||
            offset[p] > offset[p + 1] || offset[p + 1] > data.len || other_offset[q] < 0 ||
            other_offset[q] > other_offset[q + 1] || other_offset[q + 1] > other_data.len) {
            PyErr_SetString(PyExc_IndexError, "an item position or offset is out of range");
            bad = 1;
            break;
        }
        Py_ssize_t length = offset[p + 1] - offset[p];
        ((unsigned char *)out.buf)[i] =
            length == other_offset[q + 1] - other_offset[q] &&
            same_bytes((const unsigned char *)data.buf + offset[p],
                       (const unsigned char *)other_data.buf + other_offset[q], length);
    }
    if (!bad) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
    release_buffers(7, &data, &offsets, &positions, &other_data, &other_offsets, &other_positions,
                    &out);
    return result;
}

/* line_ends(data, start, end) -> the number of '\n' bytes in data[start:end], counted 16 bytes
 * at a time where SSE2 is (a block's lines are counted for the line numbers of errors: bytes.count
 * took a fifth of a streamed run's reading, holding the interpreter's lock) */
static PyObject *
line_ends(PyObject *self, PyObject *args)
{
    Py_buffer data;
    Py_ssize_t start, end, count = 0;
    if (!PyArg_ParseTuple(args, "y*nn", &data, &start, &end))
        return NULL;
    if (start < 0 || end > data.len || start > end) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_IndexError, "the span is out of the data");
        return NULL;
    }
    const unsigned char *at = (const unsigned char *)data.buf + start,
                        *stop = (const unsigned char *)data.buf + end;
    Py_BEGIN_ALLOW_THREADS
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (stop - at >= 16) {
        /* up to 255 rounds of byte counters, then summed: one pass, no per-line call */
        __m128i counts = _mm_setzero_si128();
        Py_ssize_t rounds = (stop - at) / 16;
        if (rounds > 255)
            rounds = 255;
        for (Py_ssize_t r = 0; r < rounds; r++, at += 16)
            counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(
                _mm_loadu_si128((const __m128i *)at), newline));
        __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
        count += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; at < stop; at++)
        count += *at == '\n';
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(count);
}

static PyMethodDef methods[] = {
    {"same_items", same_items, METH_VARARGS, "Whether items of two columns are the same bytes."},
    {"judged_lookup", judged_lookup, METH_VARARGS,
     "The judged pairs among retrieved ones (see the comment)."},
    {"scan", scan, METH_VARARGS, "Read a block of TREC run lines (see the module's comment)."},
    {"hash_spans", hash_spans, METH_VARARGS, "The keys that scan gives items, of other bytes."},
    {"repeats_within_runs", repeats_within_runs, METH_VARARGS,
     "Whether some run of rows holds a key twice."},
    {"take", take, METH_VARARGS, "Some items of a scanned block as Python strings."},
    {"line_ends", line_ends, METH_VARARGS, "The number of line ends in a span of bytes."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "metrics.loaders._trec_lines",
    "Reading TREC run lines in C (see metrics/loaders/run_blocks.py).", -1, methods};

PyMODINIT_FUNC
PyInit__trec_lines(void)
{
#ifdef HAVE_STRTOD_L
    if (c_locale == (locale_t)0)
        c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
#endif
    PyObject *made = PyModule_Create(&module);
    if (made && (PyModule_AddIntConstant(made, "NOT_DESCENDING", NOT_DESCENDING) ||
                 PyModule_AddIntConstant(made, "NOT_DESCENDING_FLOAT32", NOT_DESCENDING_FLOAT32) ||
                 PyModule_AddIntConstant(made, "REPEATED_KEY", REPEATED_KEY)))
        Py_CLEAR(made);
    return made;
}
