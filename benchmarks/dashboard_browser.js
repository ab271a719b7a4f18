// The browser benchmark's JavaScript, run in the page by Playwright (benchmarks/browser.py reads
// this file when it is imported). Each function starts at a line "// @function NAME" and runs to
// the next one; lines that start with "//", like these, are notes of the file and not part of
// any function; /*@NAME*/ inside a function stands for the function NAME.

// In-page instrumentation of the browser benchmark: the time of the first pointer or key event
// after the harness arms it (the user's action), when the app's script state left "notRunning"
// after it and came back (the rerun as the browser sees it), and the time a condition on the
// page first held (polled at every animation frame, so drawing is included).
// @function BENCH
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const b = window.__bench = {armed: false, t0: null, t1: null, started: null, ended: null};
  const action = () => { if (b.armed && b.t0 === null) b.t0 = performance.now(); };
  document.addEventListener('pointerdown', action, true);
  document.addEventListener('keydown', action, true);
  new MutationObserver(records => {
    if (b.t0 === null) return;
    const now = performance.now(), state = app.getAttribute('data-test-script-state');
    if (state !== 'notRunning' && b.started === null) b.started = now;
    if (state === 'notRunning') b.ended = now;
  }).observe(app, {attributes: true, attributeOldValue: true,
                   attributeFilter: ['data-test-script-state']});
}

// Arm the instrumentation for the next action.
// @function ARM
() => Object.assign(window.__bench, {armed: true, t0: null, t1: null, started: null, ended: null})

// Whether the page shows an action's new state: plotly titles (drawn SVG text), the main
// column's text, a selectbox's shown value found by its label. The harness checks that it does
// not before the action, so the action's rerun is what makes it true.
// @function SHOWN
([kind, arg]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  // the Query explorer's one figure titles its panels with annotations
  const titles = Array.from(main.querySelectorAll('.gtitle, .annotation-text'))
    .map(t => t.textContent);
  const box = label => {
    for (const s of main.querySelectorAll('[data-testid="stSelectbox"]')) {
      const l = s.querySelector('[data-testid="stWidgetLabel"]');
      if (l && l.innerText.trim() === label) return s.querySelector('input').value;
    }
    return null;
  };
  return {
    query: () => titles.includes('PR curve of ' + arg)
                 && (box('Query') || '').startsWith(arg + ' '),
    cutoff: () => titles.includes('Confusion matrix at K = ' + arg)
                  && main.innerText.includes('Unjudged in the top K = ' + arg + ':'),
    system: () => box('System') === arg[0]
                  && titles.includes('Relevant items by rank: ' + arg[0] + ' and ' + arg[1]),
    sort: () => main.innerText.includes('worst ' + arg + ' first')
                && (box('Query') || '').includes('(' + arg + ' = '),
    floor_query: () => main.innerText.includes('Shown: ' + arg + ' at'),
    floor_cutoff: () => main.innerText.includes('at K = ' + arg + '.'),
  }[kind]();
}

// Done: the new state is shown and the script state is notRunning. Not "the state was seen to
// leave notRunning": when the browser is busy, React may commit a short rerun's start and end in
// one render and the attribute never changes (seen for 2 of about 300 actions on a fast machine,
// which then waited forever); a state shown that was not shown at arming can only come from
// the action's rerun, whose elements arrive after its start.
// @function DONE
([kind, arg]) => {
  const b = window.__bench;
  const app = document.querySelector('[data-testid="stApp"]');
  if (app.getAttribute('data-test-script-state') !== 'notRunning'
      || !(/*@SHOWN*/)([kind, arg])) return false;
  if (b.t1 === null) b.t1 = performance.now();
  return true;
}
