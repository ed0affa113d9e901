import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

type ErrorLike = { name?: string; message?: string } | undefined;

/** One line of an error: its name and the first line of its message. */
const firstLine = (error: ErrorLike) => {
  const message = String(error?.message ?? error ?? '').split('\n')[0];
  return `${error?.name ?? 'Error'}: ${message}`.slice(0, 300);
};

/**
 * Writes every failure of the run, one line each, to `.run/vitest-failures.txt`: failed tests, and also what the JSON
 * report leaves out — a failed `beforeAll`/`afterAll` (its tests are reported as skipped, its file as failed without
 * a message), a file that could not be collected, and errors no test caught. `.ci/run` prints the file last, where a
 * truncated log still shows it.
 */
export default class FailuresReporter implements Reporter {
  private readonly outputFile: string;

  constructor(options: { outputFile?: string } = {}) {
    this.outputFile = options.outputFile ?? '.run/vitest-failures.txt';
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<ErrorLike>) {
    const lines: string[] = [];
    for (const module of testModules) {
      const where = `${module.project.name} ${module.moduleId}`;
      for (const error of module.errors()) lines.push(`${where}: ${firstLine(error)}`);
      for (const suite of module.children.allSuites()) {
        for (const error of suite.errors()) lines.push(`${where} > ${suite.fullName} (hook): ${firstLine(error)}`);
      }
      for (const test of module.children.allTests('failed')) {
        lines.push(`${where} > ${test.fullName}: ${firstLine(test.result().errors?.[0])}`);
      }
    }
    for (const error of unhandledErrors) lines.push(`unhandled: ${firstLine(error)}`);
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, lines.map((line) => `${line}\n`).join(''));
  }
}
