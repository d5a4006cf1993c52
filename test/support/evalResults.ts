// An EvalResult as the runner sends one: a run that passed, with what the test changes.
import type { EvalResult } from '../../src/core/protocol/api';

/** A finished run (passed, exit 0, no compilation or profile) with `over` put over its fields. */
export function evalRun(over: Partial<NonNullable<EvalResult['run']>>): EvalResult {
  return {
    start: '',
    end: '',
    compilation: null,
    profile: null,
    run: {
      success: true,
      passed: true,
      command: 'python3 x.py',
      stdout: '',
      stderr: '',
      exit_code: 0,
      duration: 1,
      result: {},
      ...over,
    },
  };
}
