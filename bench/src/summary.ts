/**
 * The one table `make bench` ends with (issue 19): each benchmark reports its headline figures here as it prints
 * its own detail, and run.ts prints them together with the machine they were measured on.
 */
import os from 'node:os';

export interface Figure {
  bench: string;
  figure: string;
  assay: string;
  baseline?: string;
  ratio?: string;
  goal: string;
  /** Whether the goal holds (undefined: no pass/fail, e.g. a figure printed for scale). */
  met?: boolean;
}

const figures: Figure[] = [];

export function addFigure(f: Figure): void {
  figures.push(f);
}

export const times = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

export function printSummary(): void {
  if (figures.length === 0) return;
  const cpus = os.cpus();
  console.log(
    `\n=== summary (${new Date().toISOString().slice(0, 16)}Z; ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ` +
      `${(os.totalmem() / 1024 ** 3).toFixed(0)} GB, load average ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version})`,
  );
  console.log('| bench | figure | Assay | baseline | ratio | goal | met |');
  console.log('|---|---|---|---|---|---|---|');
  for (const f of figures)
    console.log(
      `| ${f.bench} | ${f.figure} | ${f.assay} | ${f.baseline ?? ''} | ${f.ratio ?? ''} | ${f.goal} | ${f.met === undefined ? '' : f.met ? 'yes' : 'no'} |`,
    );
}
