import type {TopLevelSpec} from 'vega-lite'

/** One look for every chart: white background, a readable sans-serif, no interactivity. */
export const chartConfig = {
  background: 'white',
  font: 'Helvetica, Arial, sans-serif',
  padding: 12,
  title: {fontSize: 14, anchor: 'start', offset: 10},
  axis: {labelFontSize: 11, titleFontSize: 12, labelLimit: 260},
  legend: {labelFontSize: 11, titleFontSize: 12, labelLimit: 320},
  view: {stroke: '#ddd'},
} as const

/**
 * Renders a vega-lite spec to SVG text headlessly: vega-lite compiles it to vega, and a vega View with
 * the `none` renderer draws the scene graph to SVG (text is measured by estimate, so no canvas and no
 * browser is needed).
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  // Loaded when the first chart is drawn: vega and vega-lite are about 1 MB of code that `devnet up` and every
  // other command would otherwise parse at start, long before a report is written.
  const [{parse, View}, {compile}] = await Promise.all([import('vega'), import('vega-lite')])
  const compiled = compile({config: chartConfig, ...spec} as TopLevelSpec).spec
  const view = new View(parse(compiled), {renderer: 'none'})
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** A chart with nothing to show still says so, instead of being an empty box. */
export function emptyChart(title: string, message: string): TopLevelSpec {
  return {
    title,
    width: 480,
    height: 60,
    data: {values: [{message}]},
    mark: {type: 'text', fontSize: 13, color: '#666'},
    encoding: {text: {field: 'message', type: 'nominal'}},
  }
}
