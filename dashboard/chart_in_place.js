// A Plotly chart that a rerun redraws in place (Plotly.react on the same element) instead of
// mounting a new chart and drawing it twice, as st.plotly_chart does for every new figure.
// data: {spec: the figure's JSON, plotly: the URL of plotly.js, clickable: whether a click on a
// point, bar or cell is sent to the server (as the trigger value "click"), address: the page's
// permalink as a query string, or null}.

// plotly.js loaded once per page, by the first chart, and kept across reruns and pages. A classic
// script with a src: Chromium compiles it off the main thread as it arrives.
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

// The app's theme as Plotly template defaults (what st.plotly_chart's theme does): the figure's
// own settings still win, as they win over any template.
function themed(layout, host) {
  const css = getComputedStyle(host);
  const v = (name) => css.getPropertyValue(name).trim();
  const text = v("--st-text-color"), background = v("--st-background-color");
  const grid = v("--st-border-color-light") || v("--st-border-color");
  const template = layout.template || {};
  const base = template.layout || {};
  const themedLayout = Object.assign({}, base, {
    font: Object.assign({}, base.font, {color: text, family: v("--st-font")}),
    paper_bgcolor: background, plot_bgcolor: background,
    hoverlabel: {bgcolor: background, font: {color: text}},
  });
  for (const axis of ["xaxis", "yaxis"]) {
    themedLayout[axis] = Object.assign({}, base[axis], {
      gridcolor: grid, zerolinecolor: grid, linecolor: grid, tickcolor: grid});
  }
  return Object.assign({}, layout, {template: Object.assign({}, template, {layout: themedLayout})});
}

// The page's permalink into the address bar, in place (no new history entry): written through
// st.query_params instead, every query switch or change of K sent a message of its own that made
// the browser push a history entry and render the whole app again
function showAddress(address) {
  if (typeof address !== "string") return;
  const search = address ? "?" + address : "";
  if (window.location.search !== search) {
    window.history.replaceState(window.history.state, "",
                                window.location.pathname + search + window.location.hash);
  }
}

export default async function (component) {
  const { data, parentElement, setTriggerValue } = component;
  showAddress(data.address);
  let chart = parentElement.querySelector(":scope > .chart-in-place");
  if (!chart) {
    chart = document.createElement("div");
    chart.className = "chart-in-place";
    // What Plotly redraws inside the chart leaves the rest of the page's layout and paint alone
    // (its hover labels and toolbar are inside the chart, its drag cover on the body): a query
    // switch or a change of K took about a tenth of a second less in three back-to-back pairs
    // of the benchmark's runs (BENCHMARKS.md)
    chart.style.contain = "layout paint style";
    parentElement.appendChild(chart);
  }
  let Plotly;
  try {
    Plotly = await loadPlotly(data.plotly);
  } catch (error) {
    chart.textContent = error.message;
    return undefined;
  }
  if (!chart.__resizes) {
    // the column's width changes without a window resize when the sidebar opens or closes
    // (and an observer reports the size it starts with: no redraw for that)
    chart.__resizes = new ResizeObserver(() => {
      const layout = chart._fullLayout;
      if (layout && Math.abs(chart.getBoundingClientRect().width - layout.width) >= 1) {
        Plotly.Plots.resize(chart);
      }
    });
    chart.__resizes.observe(parentElement);
  }
  // A rerun that changed something else (a tab, a page of the table) sends the same figure:
  // drawn again only when the theme changed
  const spec = JSON.parse(data.spec);
  const layout = themed(spec.layout, parentElement);
  const drawn = data.spec + JSON.stringify(layout.template.layout);
  if (chart.__drawn !== drawn || !chart._fullLayout) {
    chart.__drawn = drawn;
    await Plotly.react(chart, spec.data, layout, {displaylogo: false, responsive: true});
  }
  // a click on a point, bar or cell: sent once (a trigger value, None again after the run it
  // starts), through the newest call's setter
  chart.__sendClick = data.clickable ? setTriggerValue : null;
  if (data.clickable && !chart.__clicks) {
    chart.__clicks = true;
    chart.on("plotly_click", (event) => {
      const point = event && event.points && event.points[0];
      if (!point || !chart.__sendClick) return;
      const known = (value) => (value === undefined ? null : value);
      chart.__sendClick("click", {customdata: known(point.customdata),
                                  curve_number: point.curveNumber,
                                  point_index: known(point.pointNumber)});
    });
  }
  // Streamlit also calls the cleanup of a call that a newer one overtook, while the chart is
  // still shown: free the chart only once it has left the page
  return () => {
    if (chart.isConnected) return;
    chart.__resizes.disconnect();
    Plotly.purge(chart);
  };
}
