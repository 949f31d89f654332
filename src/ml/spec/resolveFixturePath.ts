import {existsSync} from 'node:fs'
import path from 'node:path'

import {packageRoot} from '../../util/packageRoot.js'

/**
 * A job or scenario argument as a path: a file that exists is itself; a bare name such as `weather-csv` (no
 * slash, no extension) that is not a file here names the shipped fixture `fixtures/<kind>/<name>.yaml`.
 */
export function resolveFixturePath(kind: 'jobs' | 'scenarios', argument: string): string {
  if (existsSync(argument) || !/^[a-z0-9][a-z0-9._-]*$/.test(argument) || /\.ya?ml$/.test(argument)) return argument
  const shipped = path.join(packageRoot, 'fixtures', kind, `${argument}.yaml`)
  return existsSync(shipped) ? shipped : argument
}
