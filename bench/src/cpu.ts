/**
 * CPU time the processes of a benchmark burn, from /proc: a cost per request that other load on the machine does
 * not distort (throughput does: a pipeline of processes suffers more from a busy scheduler than one process).
 * Postgres counts its postmaster's children (the backends), found by the data directory's port; Redis by its port.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      out.push({ pid: Number(entry), ppid, args });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function ticks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime, stime
  } catch {
    return 0;
  }
}

/** A named group of processes whose CPU is summed; `pids` is re-read each time (Postgres backends come and go). */
export interface CpuGroup {
  name: string;
  pids: () => number[];
}

export const pidGroup = (name: string, pid: number | undefined): CpuGroup => ({ name, pids: () => (pid ? [pid] : []) });

/** The backends of the Postgres listening on `port` (its postmaster found by `postgres -D <dir>`'s postmaster.pid). */
export function postgresGroup(port: number): CpuGroup {
  const postmaster = processes().find((p) => {
    const dir = /postgres -D (\S+)/.exec(p.args)?.[1];
    if (!dir) return false;
    try {
      return fs.readFileSync(`${dir}/postmaster.pid`, 'utf8').split('\n')[3]?.trim() === String(port);
    } catch {
      return false;
    }
  });
  return {
    name: 'postgres',
    pids: () =>
      postmaster
        ? [
            postmaster.pid,
            ...processes()
              .filter((p) => p.ppid === postmaster.pid)
              .map((p) => p.pid),
          ]
        : [],
  };
}

/**
 * The Kafka broker scripts/infra started for the data directory `dataDir` (its JVM's command line carries the tag
 * kafka.sh finds it by). All its threads count; its context switches are those of a main thread that only waits.
 */
export function kafkaGroup(dataDir: string | undefined): CpuGroup {
  const tag = `-Dassay.infra.dir=${dataDir} kafka.Kafka`;
  return pidGroup('kafka', dataDir ? processes().find((p) => p.args.includes(tag))?.pid : undefined);
}

export function redisGroup(port: number): CpuGroup {
  const redis = processes().find((p) => p.args.startsWith('redis-server') && p.args.includes(`:${port}`));
  return pidGroup('redis', redis?.pid);
}

/**
 * A process's context switches so far, those of its main thread (the event loop's; `/proc/<pid>/status`): voluntary
 * (it waited: each a sleep and a wake-up) and involuntary (preempted).
 */
function switches(pid: number): { voluntary: number; involuntary: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { voluntary: field('voluntary_ctxt_switches'), involuntary: field('nonvoluntary_ctxt_switches') };
  } catch {
    return { voluntary: 0, involuntary: 0 };
  }
}

/**
 * Starts counting; the returned function gives each group's context switches since (`cpuMeter`'s rules for who is
 * in a group). A message to a process that sleeps waiting for it costs that process a wake-up, and a busy process
 * that another one's wake-up displaces is preempted: the counts say how often that happens a request, beside what
 * its CPU costs.
 */
export function switchMeter(groups: CpuGroup[]): () => Record<string, { voluntary: number; involuntary: number }> {
  const start = new Map<number, { voluntary: number; involuntary: number }>();
  for (const g of groups) for (const pid of g.pids()) start.set(pid, switches(pid));
  return () =>
    Object.fromEntries(
      groups.map((g) => {
        const sum = { voluntary: 0, involuntary: 0 };
        for (const pid of g.pids()) {
          const [now, then] = [switches(pid), start.get(pid) ?? { voluntary: 0, involuntary: 0 }];
          sum.voluntary += now.voluntary - then.voluntary;
          sum.involuntary += now.involuntary - then.involuntary;
        }
        return [g.name, sum];
      }),
    );
}

/**
 * Starts counting; the returned function gives each group's CPU milliseconds since. The processes known at the start
 * are read before the groups are looked up again: that lookup (a scan of /proc for Postgres' backends) is this
 * process's work, and this process is a measured one when it hosts the receivers (webhook-fanout).
 */
export function cpuMeter(groups: CpuGroup[]): () => Record<string, number> {
  const members = groups.map((g) => g.pids());
  const start = new Map<number, number>();
  for (const pids of members) for (const pid of pids) start.set(pid, ticks(pid));
  return () => {
    const end = new Map([...start.keys()].map((pid) => [pid, ticks(pid)]));
    const used = (pid: number) => ((end.get(pid) ?? ticks(pid)) - (start.get(pid) ?? 0)) * TICK_MS;
    return Object.fromEntries(groups.map((g) => [g.name, g.pids().reduce((sum, pid) => sum + used(pid), 0)]));
  };
}
