import fs from 'node:fs';

/**
 * Who used the two cores during a phase: the server process, the Elasticsearch node and this
 * process (the load generator), in CPU seconds from /proc/<pid>/stat (Linux). The throughput
 * figures are explained by this split, since all three share the box.
 */
const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

export function cpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
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

/** Cores used (CPU seconds per wall second) by each process over the phase. */
export interface CpuSplit {
  server: number;
  elasticsearch: number;
  loadGenerator: number;
}

export function measureCpu(serverPid: number, esPid: number | undefined): { stop(): CpuSplit } {
  const t0 = process.hrtime.bigint();
  const self0 = process.cpuUsage();
  const server0 = cpuSeconds(serverPid);
  const es0 = esPid ? cpuSeconds(esPid) : Number.NaN;
  return {
    stop() {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const self = process.cpuUsage(self0);
      return {
        server: (cpuSeconds(serverPid) - server0) / wall,
        elasticsearch: esPid ? (cpuSeconds(esPid) - es0) / wall : Number.NaN,
        loadGenerator: (self.user + self.system) / 1e6 / wall,
      };
    },
  };
}
