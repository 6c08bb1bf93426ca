/** A row that breaks a rule of its tables (`imgpost verify`): the table, the row, what is wrong with it. */
export interface TableProblem {
  table: string;
  row: string;
  problem: string;
}

/**
 * The history check of a versioned table, as SQL: each row of `table` must have exactly the versions
 * 1..`version` in `versions` (joined on `key`), the last holding what the row holds (`same` columns).
 * Selects `id`, `version`, `count`, `first`, `last`, `current` of the rows that break it.
 */
export function historyCheckSql(table: string, versions: string, key: string, same: readonly string[]): string {
  const of = `FROM ${versions} v WHERE v.${key} = t.id`;
  return `SELECT * FROM (
    SELECT t.id, t.version, (SELECT count(*) ${of}) AS count, (SELECT min(v.version) ${of}) AS first,
      (SELECT max(v.version) ${of}) AS last,
      EXISTS (SELECT 1 ${of} AND v.version = t.version ${same.map((c) => `AND v.${c} = t.${c}`).join(' ')}) AS current
    FROM ${table} t)
  WHERE NOT (count = version AND first = 1 AND last = version AND current)`;
}

export interface HistoryBreak {
  id: number;
  version: number;
  count: number;
  first: number | null;
  last: number | null;
  current: number;
}

/** What is wrong with a row's history, in words. */
export function historyProblem(b: HistoryBreak): string {
  if (b.count === 0) return `at version ${b.version} with no versions stored`;
  if (b.count !== b.version || b.first !== 1 || b.last !== b.version)
    return `at version ${b.version}, its versions out of order: ${b.count} stored, ${b.first} to ${b.last}`;
  return `its current version ${b.version} is not the one stored`;
}
