import type {Figure} from './headlineFigures.js'

/** `stake slashed (ETH)`; counts, yes/no and percentages say their unit in the value already. */
export function figureLabel({name, unit}: Pick<Figure, 'name' | 'unit'>): string {
  return unit === 'count' || unit === 'yes/no' || unit === '% caught' ? name : `${name} (${unit})`
}
