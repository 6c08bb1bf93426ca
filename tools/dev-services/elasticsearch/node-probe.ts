/**
 * What a managed node answers over HTTP: the checks start, status and the start lock's waiters make.
 * None of them throws; no answer is undefined.
 */
async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

// `GET /` answers 405 on this distribution; cluster health is the readiness signal.
export const clusterHealth = async (url: string) =>
  (await getJson<{ status?: string }>(`${url}/_cluster/health`))?.status;
export const isReady = (status: string | undefined) => status === 'green' || status === 'yellow';

export async function localNodeInfo(
  url: string,
): Promise<{ pid?: number; version?: string; home?: string; jvmArguments?: string[] } | undefined> {
  type Node = {
    version?: string;
    process?: { id?: number };
    settings?: { path?: { home?: string } };
    jvm?: { input_arguments?: string[] };
  };
  const q = 'filter_path=nodes.*.version,nodes.*.process.id,nodes.*.settings.path.home,nodes.*.jvm.input_arguments';
  const node = Object.values(
    (await getJson<{ nodes?: Record<string, Node> }>(`${url}/_nodes/_local?${q}`))?.nodes ?? {},
  )[0];
  return (
    node && {
      pid: node.process?.id,
      version: node.version,
      home: node.settings?.path?.home,
      jvmArguments: node.jvm?.input_arguments,
    }
  );
}
