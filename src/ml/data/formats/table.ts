/** What a data file holds once parsed: named columns of cells (csv, parquet) or named arrays (npy, npz, idx). */
export type Cell = string | number | null

export type Table = {kind: 'table'; header: string[]; rows: Cell[][]}

/** An n-dimensional array in row-major order; string arrays (npy `<U`) keep their strings. */
export type NdArray = {shape: number[]; data: ArrayLike<number> | readonly string[]}

export type ArraySet = {kind: 'arrays'; arrays: Map<string, NdArray>}

export type ParsedData = Table | ArraySet
