/* The all-vs-all counting kernel in C (metrics/allvsall.py holds the NumPy version and the
 * tie handling; both give the same counts).
 *
 * For every row of a block of an N x N score matrix: sort the query's clique mates' scores worst
 * first, then, for each of those scores, count the items scored strictly better and the items
 * scored exactly the same. One pass over the row checks that every score is finite and copies
 * out the items at least as good as the worst mate; each further level only reads what is left
 * above the level before, so a row is read from memory once.
 *
 * No NumPy headers: arrays arrive through the buffer protocol, shapes are passed explicitly and
 * checked against the buffer sizes, and the GIL is released while counting so that row parts
 * run on several threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GREATER(a, b) ((a) > (b))
#define LESS(a, b) ((a) < (b))
#define GREATER_EQUAL(a, b) ((a) >= (b))
#define LESS_EQUAL(a, b) ((a) <= (b))

/* One row: the first pass copies the items at least as good as the worst mate's score lv[0] to
 * buf (in order) and notes any NaN or infinity (x - x is 0 for a finite x and NaN otherwise);
 * then each of the m levels lv[k] (worst first) counts, over the copied items, those strictly
 * better and those equal. Returns whether a score is not finite. With m = 0 it only checks. */
typedef int (*scan_f32)(const float *, Py_ssize_t, const float *, Py_ssize_t, float, float *,
                        int64_t *, int64_t *);
typedef int (*scan_f64)(const double *, Py_ssize_t, const double *, Py_ssize_t, double,
                        double *, int64_t *, int64_t *);

/* the counting over the copied items; plain loops that the compiler vectorises (with AVX2 in the
 * AVX2 version, whose target attribute covers them) */
#define COUNT_LEVELS(T, ABOVE)                                                                   \
    for (Py_ssize_t k = 0; k < m; k++) {                                                         \
        const T l = lv[k];                                                                       \
        uint32_t better = 0, same = 0;                                                           \
        for (uint32_t i = 0; i < (uint32_t)len; i++) {                                           \
            better += ABOVE(buf[i], l);                                                          \
            same += buf[i] == l;                                                                 \
        }                                                                                        \
        higher[k] = better;                                                                      \
        equal[k] = same;                                                                         \
    }

/* the end of every version of the scan: the items after the last whole step or vector, one at a
 * time, then the counting over the copied items */
#define FINISH_SCAN(T, AT_LEAST, ABOVE)                                                          \
    for (; j < n; j++) {                                                                         \
        bad |= !(row[j] - row[j] == 0);                                                          \
        buf[len] = row[j];                                                                       \
        len += AT_LEAST(row[j], low);                                                            \
    }                                                                                            \
    if (bad)                                                                                     \
        return 1;                                                                                \
    COUNT_LEVELS(T, ABOVE)                                                                       \
    return 0;

/* Portable version: a step of 16 items with none at least as good as `low` (most steps when the
 * mates score high) is compared, never copied; the copy itself writes every item and advances
 * only past the kept ones, which avoids a branch per item. */
#define STEP 16
#define DEFINE_SCAN(NAME, T, AT_LEAST, ABOVE)                                                    \
static int NAME(const T *row, Py_ssize_t n, const T *lv, Py_ssize_t m, T missing, T *buf,        \
                int64_t *higher, int64_t *equal)                                                 \
{                                                                                                \
    const T low = m ? lv[0] : missing;                                                           \
    int bad = 0;                                                                                 \
    Py_ssize_t len = 0, j = 0;                                                                   \
    for (; j + STEP <= n; j += STEP) {                                                           \
        int any = 0, nonfinite = 0;                                                              \
        for (int t = 0; t < STEP; t++) {                                                         \
            any |= AT_LEAST(row[j + t], low);                                                    \
            nonfinite |= !(row[j + t] - row[j + t] == 0);                                        \
        }                                                                                        \
        bad |= nonfinite;                                                                        \
        if (any)                                                                                 \
            for (int t = 0; t < STEP; t++) {                                                     \
                buf[len] = row[j + t];                                                           \
                len += AT_LEAST(row[j + t], low);                                                \
            }                                                                                    \
    }                                                                                            \
    FINISH_SCAN(T, AT_LEAST, ABOVE)                                                              \
}

DEFINE_SCAN(scan_f32_larger_portable, float, GREATER_EQUAL, GREATER)
DEFINE_SCAN(scan_f32_smaller_portable, float, LESS_EQUAL, LESS)
DEFINE_SCAN(scan_f64_larger_portable, double, GREATER_EQUAL, GREATER)
DEFINE_SCAN(scan_f64_smaller_portable, double, LESS_EQUAL, LESS)

static scan_f32 scan_f32_larger = scan_f32_larger_portable;
static scan_f32 scan_f32_smaller = scan_f32_smaller_portable;
static scan_f64 scan_f64_larger = scan_f64_larger_portable;
static scan_f64 scan_f64_smaller = scan_f64_smaller_portable;
static const char *instruction_set = "portable";

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_SCAN 1

/* AVX2 version, chosen at import when the CPU has AVX2: compare a vector with `low`, and move the
 * kept lanes to the front with one permutation looked up by the comparison's bit mask. Every
 * vector is stored whole; the next store starts after the kept lanes. buf + len + vector width
 * never passes buf + n, because len never passes the items read. */
static int32_t lanes_f32[256][8];   /* mask of 8 floats -> the kept lanes first */
static int32_t lanes_f64[16][8];    /* mask of 4 doubles -> their 32-bit halves, kept first */

static void
fill_lanes(void)
{
    for (int mask = 0; mask < 256; mask++) {
        int out = 0;
        for (int lane = 0; lane < 8; lane++)
            if (mask >> lane & 1)
                lanes_f32[mask][out++] = lane;
        while (out < 8)
            lanes_f32[mask][out++] = 0;
    }
    for (int mask = 0; mask < 16; mask++) {
        int out = 0;
        for (int lane = 0; lane < 4; lane++)
            if (mask >> lane & 1) {
                lanes_f64[mask][out++] = 2 * lane;
                lanes_f64[mask][out++] = 2 * lane + 1;
            }
        while (out < 8)
            lanes_f64[mask][out++] = 0;
    }
}

#define DEFINE_SCAN_AVX2_F32(NAME, PREDICATE, AT_LEAST, ABOVE)                                   \
__attribute__((target("avx2,popcnt")))                                                          \
static int NAME(const float *row, Py_ssize_t n, const float *lv, Py_ssize_t m, float missing,    \
                float *buf, int64_t *higher, int64_t *equal)                                     \
{                                                                                                \
    const float low = m ? lv[0] : missing;                                                       \
    const __m256 low8 = _mm256_set1_ps(low);                                                     \
    __m256 bad8 = _mm256_setzero_ps();                                                           \
    Py_ssize_t len = 0, j = 0;                                                                   \
    for (; j + 8 <= n; j += 8) {                                                                 \
        __m256 v = _mm256_loadu_ps(row + j);                                                     \
        bad8 = _mm256_or_ps(bad8, _mm256_sub_ps(v, v));                                          \
        int mask = _mm256_movemask_ps(_mm256_cmp_ps(v, low8, PREDICATE));                       \
        __m256i lanes = _mm256_loadu_si256((const __m256i *)lanes_f32[mask]);                    \
        _mm256_storeu_ps(buf + len, _mm256_permutevar8x32_ps(v, lanes));                         \
        len += __builtin_popcount(mask);                                                         \
    }                                                                                            \
    int bad = _mm256_movemask_ps(_mm256_cmp_ps(bad8, _mm256_setzero_ps(), _CMP_NEQ_UQ)) != 0;  \
    FINISH_SCAN(float, AT_LEAST, ABOVE)                                                          \
}

#define DEFINE_SCAN_AVX2_F64(NAME, PREDICATE, AT_LEAST, ABOVE)                                   \
__attribute__((target("avx2,popcnt")))                                                          \
static int NAME(const double *row, Py_ssize_t n, const double *lv, Py_ssize_t m, double missing, \
                double *buf, int64_t *higher, int64_t *equal)                                    \
{                                                                                                \
    const double low = m ? lv[0] : missing;                                                      \
    const __m256d low4 = _mm256_set1_pd(low);                                                    \
    __m256d bad4 = _mm256_setzero_pd();                                                          \
    Py_ssize_t len = 0, j = 0;                                                                   \
    for (; j + 4 <= n; j += 4) {                                                                 \
        __m256d v = _mm256_loadu_pd(row + j);                                                    \
        bad4 = _mm256_or_pd(bad4, _mm256_sub_pd(v, v));                                          \
        int mask = _mm256_movemask_pd(_mm256_cmp_pd(v, low4, PREDICATE));                       \
        __m256i lanes = _mm256_loadu_si256((const __m256i *)lanes_f64[mask]);                    \
        __m256 moved = _mm256_permutevar8x32_ps(_mm256_castpd_ps(v), lanes);                     \
        _mm256_storeu_pd(buf + len, _mm256_castps_pd(moved));                                    \
        len += __builtin_popcount(mask);                                                         \
    }                                                                                            \
    int bad = _mm256_movemask_pd(_mm256_cmp_pd(bad4, _mm256_setzero_pd(), _CMP_NEQ_UQ)) != 0;  \
    FINISH_SCAN(double, AT_LEAST, ABOVE)                                                         \
}

DEFINE_SCAN_AVX2_F32(scan_f32_larger_avx2, _CMP_GE_OQ, GREATER_EQUAL, GREATER)
DEFINE_SCAN_AVX2_F32(scan_f32_smaller_avx2, _CMP_LE_OQ, LESS_EQUAL, LESS)
DEFINE_SCAN_AVX2_F64(scan_f64_larger_avx2, _CMP_GE_OQ, GREATER_EQUAL, GREATER)
DEFINE_SCAN_AVX2_F64(scan_f64_smaller_avx2, _CMP_LE_OQ, LESS_EQUAL, LESS)
#endif

/* Returns the first row of the block holding a NaN or an infinity, or -1. */
#define DEFINE_KERNEL(NAME, T, SCAN, ABOVE)                                                      \
static Py_ssize_t NAME(const T *block, Py_ssize_t rows, Py_ssize_t n, Py_ssize_t first_row,      \
                       const int64_t *members, const int64_t *clique_start,                     \
                       const int64_t *clique_size, Py_ssize_t width, double missing,            \
                       double *level, int64_t *mate, uint8_t *valid, double *own,               \
                       int64_t *higher, int64_t *equal, T *buf, T *lv, int64_t *lc)              \
{                                                                                                \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                      \
        const T *row = block + r * n;                                                            \
        const int64_t *clique = members + clique_start[r];                                       \
        Py_ssize_t m = 0;                                                                        \
        for (Py_ssize_t j = 0; j < clique_size[r]; j++) {   /* stable insertion sort, worst first */ \
            int64_t c = clique[j];                                                               \
            if (c == first_row + r)   /* the query itself */                                     \
                continue;                                                                        \
            T v = row[c];                                                                        \
            Py_ssize_t i = m++;                                                                  \
            while (i > 0 && ABOVE(lv[i - 1], v)) {                                               \
                lv[i] = lv[i - 1];                                                               \
                lc[i] = lc[i - 1];                                                               \
                i--;                                                                             \
            }                                                                                    \
            lv[i] = v;                                                                           \
            lc[i] = c;                                                                           \
        }                                                                                        \
        own[r] = (double)row[first_row + r];                                                     \
        for (Py_ssize_t k = 0; k < width; k++) {                                                 \
            Py_ssize_t at = r * width + k;                                                       \
            level[at] = k < m ? (double)lv[k] : missing;                                         \
            mate[at] = k < m ? lc[k] : 0;                                                        \
            valid[at] = k < m;                                                                   \
            higher[at] = 0;                                                                      \
            equal[at] = 0;                                                                       \
        }                                                                                        \
        if (SCAN(row, n, lv, m, (T)missing, buf, higher + r * width, equal + r * width))         \
            return r;                                                                            \
    }                                                                                            \
    return -1;                                                                                   \
}

DEFINE_KERNEL(count_f32_larger, float, scan_f32_larger, GREATER)
DEFINE_KERNEL(count_f32_smaller, float, scan_f32_smaller, LESS)
DEFINE_KERNEL(count_f64_larger, double, scan_f64_larger, GREATER)
DEFINE_KERNEL(count_f64_smaller, double, scan_f64_smaller, LESS)

static int
fits(Py_buffer *view, Py_ssize_t count, Py_ssize_t size, const char *what)
{
    if (count < 0 || view->len < count * size) {
        PyErr_Format(PyExc_ValueError, "%s: the buffer holds %zd bytes, %zd are needed",
                     what, view->len, count * size);
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(count_levels_doc,
"count_levels(block, double, rows, n, first_row, members, clique_start, clique_size, width,\n"
"             larger_is_better, level, mate, valid, own, higher, equal) -> int\n\n"
"For each of ``rows`` rows of ``n`` scores (float64 if ``double`` else float32, C order), whose\n"
"first row is row ``first_row`` of the matrix: the clique mates' scores worst first (``level``,\n"
"padded with the unreachable score), their columns (``mate``), which are real (``valid``), the\n"
"query's score of itself (``own``), and per level the items scored strictly better (``higher``)\n"
"and exactly equal (``equal``), over all n columns; ``width`` columns per row. Row r's clique\n"
"is ``members[clique_start[r]:clique_start[r] + clique_size[r]]`` (the query among them).\n"
"Returns the first row holding a non-finite score, or -1.");

static PyObject *
count_levels(PyObject *self, PyObject *args)
{
    Py_buffer block, members, clique_start, clique_size, level, mate, valid, own, higher, equal;
    int is_double, larger;
    Py_ssize_t rows, n, first_row, width;
    if (!PyArg_ParseTuple(args, "y*pnnny*y*y*npw*w*w*w*w*w*", &block, &is_double, &rows, &n,
                          &first_row, &members, &clique_start, &clique_size, &width, &larger,
                          &level, &mate, &valid, &own, &higher, &equal))
        return NULL;
    Py_ssize_t item = is_double ? sizeof(double) : sizeof(float);
    Py_ssize_t found = -2;
    /* the per-level counters are 32-bit */
    if (rows < 0 || n < 1 || (uint64_t)n > UINT32_MAX || width < 1 || first_row < 0
        || first_row + rows > n) {
        PyErr_SetString(PyExc_ValueError, "count_levels: rows, n, first_row or width out of range");
        goto done;
    }
    if (!fits(&block, rows * n, item, "block") || !fits(&clique_start, rows, 8, "clique_start")
        || !fits(&clique_size, rows, 8, "clique_size") || !fits(&level, rows * width, 8, "level")
        || !fits(&mate, rows * width, 8, "mate") || !fits(&valid, rows * width, 1, "valid")
        || !fits(&own, rows, 8, "own") || !fits(&higher, rows * width, 8, "higher")
        || !fits(&equal, rows * width, 8, "equal"))
        goto done;
    /* every clique inside members, every member a column, at most width mates per row */
    const int64_t *in = members.buf, *start = clique_start.buf, *size = clique_size.buf;
    Py_ssize_t listed = members.len / 8;
    for (Py_ssize_t r = 0; r < rows; r++) {
        if (start[r] < 0 || size[r] < 0 || start[r] > listed - size[r]) {
            PyErr_SetString(PyExc_ValueError, "count_levels: a clique lies outside members");
            goto done;
        }
        Py_ssize_t mates = 0;
        for (Py_ssize_t j = start[r]; j < start[r] + size[r]; j++) {
            if (in[j] < 0 || in[j] >= n) {
                PyErr_SetString(PyExc_ValueError, "count_levels: a member is not a column");
                goto done;
            }
            mates += in[j] != first_row + r;
        }
        if (mates > width) {
            PyErr_SetString(PyExc_ValueError, "count_levels: more clique mates than width");
            goto done;
        }
    }
    void *buf = malloc((size_t)n * item);
    void *lv = malloc((size_t)width * item);
    int64_t *lc = malloc((size_t)width * sizeof(int64_t));
    if (!buf || !lv || !lc) {
        free(buf);
        free(lv);
        free(lc);
        PyErr_NoMemory();
        goto done;
    }
    double missing = larger ? Py_HUGE_VAL : -Py_HUGE_VAL;
    Py_BEGIN_ALLOW_THREADS
    if (is_double)
        found = (larger ? count_f64_larger : count_f64_smaller)(
            block.buf, rows, n, first_row, in, start, size, width, missing, level.buf, mate.buf,
            valid.buf, own.buf, higher.buf, equal.buf, buf, lv, lc);
    else
        found = (larger ? count_f32_larger : count_f32_smaller)(
            block.buf, rows, n, first_row, in, start, size, width, missing, level.buf, mate.buf,
            valid.buf, own.buf, higher.buf, equal.buf, buf, lv, lc);
    Py_END_ALLOW_THREADS
    free(buf);
    free(lv);
    free(lc);
done:
    PyBuffer_Release(&block);
    PyBuffer_Release(&members);
    PyBuffer_Release(&clique_start);
    PyBuffer_Release(&clique_size);
    PyBuffer_Release(&level);
    PyBuffer_Release(&mate);
    PyBuffer_Release(&valid);
    PyBuffer_Release(&own);
    PyBuffer_Release(&higher);
    PyBuffer_Release(&equal);
    return found == -2 ? NULL : PyLong_FromSsize_t(found);
}

/* Points the first pass at one version; returns 0 when this build or CPU does not have it. */
static int
select_copy(const char *name)
{
    if (strcmp(name, "portable") == 0) {
        scan_f32_larger = scan_f32_larger_portable;
        scan_f32_smaller = scan_f32_smaller_portable;
        scan_f64_larger = scan_f64_larger_portable;
        scan_f64_smaller = scan_f64_smaller_portable;
        instruction_set = "portable";
        return 1;
    }
#ifdef HAVE_AVX2_SCAN
    if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2")
        && __builtin_cpu_supports("popcnt")) {
        scan_f32_larger = scan_f32_larger_avx2;
        scan_f32_smaller = scan_f32_smaller_avx2;
        scan_f64_larger = scan_f64_larger_avx2;
        scan_f64_smaller = scan_f64_smaller_avx2;
        instruction_set = "avx2";
        return 1;
    }
#endif
    return 0;
}

static PyObject *
use_instruction_set(PyObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    return PyBool_FromLong(select_copy(name));
}

static PyObject *
get_instruction_set(PyObject *self, PyObject *unused)
{
    return PyUnicode_FromString(instruction_set);
}

static PyMethodDef methods[] = {
    {"use_instruction_set", use_instruction_set, METH_VARARGS,
     "use_instruction_set(name) -> bool\n\nRun the first pass with 'avx2' or 'portable' code; "
     "False (and no change) when this build or CPU lacks it."},
    {"instruction_set", get_instruction_set, METH_NOARGS,
     "instruction_set() -> str\n\nThe code the first pass runs: 'avx2' or 'portable'."},
    {"count_levels", count_levels, METH_VARARGS, count_levels_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "metrics.ranking._counting",
    "The all-vs-all counting kernel in C; metrics.ranking.allvsall falls back to NumPy without it.",
    -1, methods,
};

PyMODINIT_FUNC
PyInit__counting(void)
{
#ifdef HAVE_AVX2_SCAN
    fill_lanes();
#endif
    if (!select_copy("avx2"))
        select_copy("portable");
    return PyModule_Create(&module);
}
