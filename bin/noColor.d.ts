/** Sets FORCE_COLOR=0 when NO_COLOR or --no-color asks for no colour; returns the arguments without --no-color. */
export function honourNoColor(env?: NodeJS.ProcessEnv, argv?: string[]): string[]
