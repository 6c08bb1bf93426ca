/**
 * The jobs role (src/roles/jobs.ts), loaded by a command only once its arguments are parsed: the
 * role brings in every service and outside client (about a second of start-up under tsx), which
 * `--help` and usage errors do not need. The CLI's tests start hundreds of these processes.
 */
export const jobsRole = () => import('../roles/jobs.ts');
