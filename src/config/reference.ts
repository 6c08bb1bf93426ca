import { GROUPS, type Setting, settingsOf } from './define.ts';
import { DEV_SERVICE_SETTINGS } from './dev-service-settings.ts';
import { AWS_SDK_QUIET, S3_SETTINGS } from './s3-settings.ts';
import { CLI_DEBUG, SETTINGS } from './settings.ts';

/**
 * The configuration reference, docs/configuration.md, written from the declarations
 * (src/config/settings.ts, s3-settings.ts, dev-service-settings.ts) by `npm run docs:config`;
 * test/foundation/config-docs.test.ts fails when the committed file differs from what this gives.
 */

/** Every declared setting, for the reference: the configuration's, the S3 store's, the others, the dev services'. */
export const ALL_SETTINGS: readonly Setting<unknown>[] = [
  ...settingsOf(SETTINGS),
  ...settingsOf(S3_SETTINGS),
  AWS_SDK_QUIET,
  CLI_DEBUG,
  ...settingsOf(DEV_SERVICE_SETTINGS),
];

export const REFERENCE_FILE = 'docs/configuration.md';
export const REFERENCE_COMMAND = 'npm run docs:config';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function defaultOf(s: Setting<unknown>): string {
  const d = s.declaration;
  if (d.shownDefault !== undefined) return d.shownDefault;
  if (typeof d.default === 'string' && d.default !== '') return `\`${d.default}\``;
  return 'unset';
}

export function renderConfigReference(settings: readonly Setting<unknown>[] = ALL_SETTINGS): string {
  const out = [
    '# Configuration reference',
    '',
    `<!-- Generated from src/config/*settings.ts by \`${REFERENCE_COMMAND}\`: edit the declarations there, ` +
      'not this file. -->',
    '',
    'imgpost reads its configuration from environment variables, once, at start-up; no other code reads',
    "the environment. Each variable is declared once, in `src/config/settings.ts` (the S3 store's in",
    "`s3-settings.ts`, the development services' in `dev-service-settings.ts`): its name, what it",
    'accepts, its default and the line below. The `Config` type the code sees is derived from those',
    'declarations. An empty variable counts as unset. A bad value stops start-up with one line naming it,',
    '`invalid configuration: NAME="value": why` (the command line then exits with code 2).',
    '',
  ];
  for (const [group, { title, intro }] of Object.entries(GROUPS)) {
    const members = settings.filter((s) => s.group === group);
    if (members.length === 0) continue;
    out.push(`## ${title}`, '', intro, '', '| variable | default | accepts | meaning |', '|---|---|---|---|');
    for (const s of members) {
      const meaning = (group === 'tests' ? 'tests only: ' : '') + s.declaration.doc;
      out.push(`| \`${s.env}\` | ${cell(defaultOf(s))} | ${cell(s.declaration.type.accepts)} | ${cell(meaning)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
