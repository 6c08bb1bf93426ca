import fs from 'node:fs';

/**
 * Who used the two cores during a phase: the server process, the Elasticsearch node and this
 * process (the load generator), in CPU seconds from /proc/<pid>/stat (Linux). The throughput
 * figures are explained by this split, since all three share the box.
 */
const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

/** A process's CPU seconds so far, or one of its threads' (`tid`; the main thread's is the pid). */
export function cpuSeconds(pid: number, tid?: number): number {
  try {
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const stat = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * Seconds a thread has spent runnable but waiting for a core, so far (the second field of
 * /proc/<pid>/task/<tid>/schedstat; the main thread's tid is the pid). NaN where the kernel keeps no
 * schedstats. Two busy threads on two cores wait almost never; more runnable threads than cores
 * wait in turn, which a throughput loses as latency on top of its CPU.
 */
export function runQueueWaitSeconds(pid: number, tid = pid): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return Number.NaN;
  }
}

/** Each thread's name (its `comm`) and CPU seconds so far, by thread id: where a process's CPU went. */
export function threadCpuSeconds(pid: number): Map<number, { name: string; s: number }> {
  const out = new Map<number, { name: string; s: number }>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`).map(Number)) {
    const s = cpuSeconds(pid, tid);
    if (Number.isNaN(s)) continue; // ended meanwhile
    out.set(tid, { name: fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), s });
  }
  return out;
}

/**
 * CPU seconds per thread between two threadCpuSeconds readings, summed by thread name (V8's and
 * libuv's pools each under one name) except worker threads, which are listed one by one, busiest first.
 */
export function threadCpuSpent(
  before: Map<number, { name: string; s: number }>,
  after: Map<number, { name: string; s: number }>,
): [string, number][] {
  const byName = new Map<string, number>();
  const workers: number[] = [];
  for (const [tid, { name, s }] of after) {
    const spent = s - (before.get(tid)?.s ?? 0);
    if (name === 'WorkerThread') workers.push(spent);
    else byName.set(name, (byName.get(name) ?? 0) + spent);
  }
  workers.sort((a, b) => b - a);
  return [...byName, ...workers.map((s, i): [string, number] => [`WorkerThread#${i + 1}`, s])];
}

export async function elasticsearchPid(esUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${esUrl}/_nodes/_local/process?filter_path=nodes.*.process.id`);
    const body = (await res.json()) as { nodes?: Record<string, { process?: { id?: number } }> };
    return Object.values(body.nodes ?? {})[0]?.process?.id;
  } catch {
    return undefined;
  }
}

/** CPU seconds each named process (and `self`, this process: the load generator) spent in one window. */
export type CpuSpent<K extends string> = Record<K | 'self', number> & { wallS: number };

/**
 * Opens a window over the named processes (an undefined pid counts NaN); the returned function
 * closes it. Every bench measures CPU this one way: per phase, or summed over alternating
 * windows by a CpuTally and divided by the requests they served.
 */
export function cpuWindow<K extends string>(pids: Record<K, number | undefined>): () => CpuSpent<K> {
  const names = Object.keys(pids) as K[];
  const read = () => names.map((k) => (pids[k] ? cpuSeconds(pids[k]!) : Number.NaN));
  const t0 = process.hrtime.bigint();
  const self0 = process.cpuUsage();
  const start = read();
  return () => {
    const end = read();
    const self = process.cpuUsage(self0);
    const out = {
      wallS: Number(process.hrtime.bigint() - t0) / 1e9,
      self: (self.user + self.system) / 1e6,
    } as CpuSpent<K>;
    names.forEach((k, i) => ((out as Record<string, number>)[k] = end[i] - start[i]));
    return out;
  };
}

/** Windows summed per process, for CPU per request over alternating runs. */
export class CpuTally<K extends string> {
  private readonly seconds = new Map<string, number>();
  requests = 0;

  add(spent: CpuSpent<K>, requests: number): void {
    for (const [k, v] of Object.entries(spent))
      if (k !== 'wallS') this.seconds.set(k, (this.seconds.get(k) ?? 0) + (v as number));
    this.requests += requests;
  }

  /** milliseconds of CPU per request */
  perRequestMs(who: K | 'self'): number {
    return (1000 * (this.seconds.get(who) ?? Number.NaN)) / this.requests;
  }
}

/** Cores used (CPU seconds per wall second) by each process over the phase. */
export interface CpuSplit {
  server: number;
  elasticsearch: number;
  loadGenerator: number;
}

export function measureCpu(serverPid: number, esPid: number | undefined): { stop(): CpuSplit } {
  const stop = cpuWindow({ server: serverPid, elasticsearch: esPid });
  return {
    stop() {
      const s = stop();
      return { server: s.server / s.wallS, elasticsearch: s.elasticsearch / s.wallS, loadGenerator: s.self / s.wallS };
    },
  };
}
