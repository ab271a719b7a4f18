// plotly.js loaded once per page, by whichever component asks first (the chart, or the early
// load a page with charts starts as it begins); kept across reruns. A classic script with a
// src: Chromium compiles it off the main thread as it arrives.
function loadPlotly(url) {
  if (!window.__chartInPlacePlotly) {
    window.__chartInPlacePlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        window.__chartInPlacePlotly = undefined;   // let a later rerun try again
        reject(new Error("could not load plotly.js from " + url));
      };
      document.head.appendChild(script);
    });
  }
  return window.__chartInPlacePlotly;
}

