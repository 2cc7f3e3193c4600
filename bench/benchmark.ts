// What the runner knows of a benchmark: a name to select it by and a run that prints its own
// lines. PASS and FAIL are both results; only a run that could not measure throws.
export interface Benchmark {
  name: string;
  /** One line for the runner's usage text. */
  summary: string;
  /** `flags`: the `--name value` pairs given after the benchmark names, e.g. `--sizes 1e4,1e5`. */
  run(print: (line: string) => void, flags?: Record<string, string>): Promise<void>;
}

/** The benchmark ran, but its numbers cannot be trusted (e.g. the server answered errors). */
export class InvalidRunError extends Error {
  override name = 'InvalidRunError';
}
