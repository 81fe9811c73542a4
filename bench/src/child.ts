/** A benchmark's helper process (the fan-out's bare loop and floor), driven over IPC: each request gets one answer. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { NODE_FLAGS } from '@assay/testkit';

/**
 * Forks `script` (a file of bench/dist) with the system's Node flags; with BENCH_CPU_PROF it writes a V8 CPU profile
 * into <BENCH_CPU_PROF>/<name> when it stops. `ask` rejects when the process exits before it answers.
 */
export function forkChild<Request, Answer>(script: string, name: string): { child: ChildProcess; ask: (m: Request) => Promise<Answer> } {
  const child = fork(path.join(__dirname, script), [], {
    execArgv: process.env.BENCH_CPU_PROF
      ? [...NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF, name)}`]
      : NODE_FLAGS,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (m: Request) =>
    new Promise<Answer>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the ${name} process exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (a: Answer) => {
        child.off('exit', onExit);
        resolve(a);
      });
      child.send(m as object);
    });
  return { child, ask };
}
