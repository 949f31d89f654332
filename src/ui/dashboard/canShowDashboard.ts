/**
 * The dashboard needs a terminal to draw on and a keyboard to read; anything else gets the plain line log. So does
 * a CI job even on a terminal: ink draws nothing live there (it writes only the last frame, at exit, when `CI` or
 * `CONTINUOUS_INTEGRATION` is set), and a CI log wants lines anyway.
 */
export function canShowDashboard(options: {json: boolean; stdout?: {isTTY?: boolean}; stdin?: {isTTY?: boolean}; env?: NodeJS.ProcessEnv}): boolean {
  const stdout = options.stdout ?? process.stdout
  const stdin = options.stdin ?? process.stdin
  const env = options.env ?? process.env
  const set = (key: string) => env[key] !== undefined && env[key] !== '0' && env[key] !== 'false'
  const inCi = set('CI') || set('CONTINUOUS_INTEGRATION')
  return !options.json && stdout.isTTY === true && stdin.isTTY === true && env.TERM !== 'dumb' && !inCi
}
