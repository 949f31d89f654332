// NO_COLOR (https://no-color.org: any non-empty value) and the global --no-color flag turn colour off everywhere.
// Read here, before anything loads a colour library: chalk 5 (ink's, so the dashboard) ignores NO_COLOR and fixes
// its level when first imported, while every colour library the CLI loads (chalk 4 and 5, ansis for oclif's help,
// cli-progress) reads FORCE_COLOR=0 as "no colour". Set in the environment, it also reaches the actor processes a
// devnet spawns.

/**
 * Sets FORCE_COLOR=0 when NO_COLOR or --no-color asks for no colour, and returns the arguments without
 * --no-color, so that commands which do not declare it (oclif's plugins: version, autocomplete) accept it too.
 */
export function honourNoColor(env = process.env, argv = process.argv.slice(2)) {
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--')
  const flagged = argv.slice(0, end).includes('--no-color')
  if ((env.NO_COLOR ?? '') !== '' || flagged) env.FORCE_COLOR = '0'
  return [...argv.slice(0, end).filter((arg) => arg !== '--no-color'), ...argv.slice(end)]
}
