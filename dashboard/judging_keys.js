// The judging panel's keys (dashboard/judging.py): a digit grades the current item (its grade
// button is pressed, so a key stores exactly what a click stores), space plays or pauses its
// player, n and p press Next and Previous. data: {current: the current item's number}. One
// listener for the page, kept across reruns; it reads the latest run's data, does nothing
// while the panel is not on the page, and leaves keys typed into a box (the judge's name) alone.

function press(key) {
  const button = document.querySelector(`.st-key-${key} button`);
  if (!button || button.disabled) return false;
  button.click();
  return true;
}

function onKey(event) {
  const state = window.__judgingKeys;
  if (!state || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
    return;
  }
  if (!document.querySelector(".st-key-judging_panel")) return;
  let done = false;
  if (/^[0-9]$/.test(event.key)) {
    done = press(`judge_${state.current}_grade_${event.key}`);
  } else if (event.key === "n" || event.key === "p") {
    done = press(event.key === "n" ? "judge_next" : "judge_prev");
  } else if (event.key === " ") {
    const player = document.querySelector(`.st-key-audio_judge_${state.current} audio`);
    if (player) {
      if (player.paused) player.play(); else player.pause();
      done = true;
    }
  }
  if (done) event.preventDefault();   // space would also scroll the page or press a button
}

export default function (component) {
  window.__judgingKeys = component.data;
  if (!window.__judgingListener) {
    window.__judgingListener = onKey;
    document.addEventListener("keydown", onKey);
  }
}
