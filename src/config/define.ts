import path from 'node:path';
import { z } from 'zod';

/**
 * How a setting is declared: once, with its environment name, how its text is read and checked,
 * its default, its documentation and its group in the reference. A tree of declarations (the object
 * that holds them) says where each value lands; `Values` derives the type of what parsing it gives.
 */

export class ConfigError extends Error {}

/** The groups of the configuration reference (docs/configuration.md), in its order. */
export const GROUPS = {
  server: {
    title: 'Server and command line',
    intro: 'Where the HTTP server listens, the URLs it returns, its data directory, limits and logs.',
  },
  elasticsearch: {
    title: 'Elasticsearch',
    intro: 'The search engine. Unset, the server starts (or finds) the managed local node; see Development services.',
  },
  media: {
    title: 'Media storage and S3',
    intro:
      'Where images and thumbnails live. The `S3_*` settings are read only when a store on S3 is used: ' +
      '`MEDIA_STORE=s3://…`, or the store `imgpost media migrate` recorded as the active one.',
  },
  uploads: {
    title: 'Uploads and hashing',
    intro:
      'Image size, direct uploads, the hash workers and robust descriptors. An upload is whole when it is ' +
      'answered: the 201 comes once its image, both thumbnails and its robust descriptor are stored and the ' +
      'post is searchable, by its text and tags and by `similar?robust=1`, and its webhook deliveries are ' +
      "queued (docs/decisions.md §4). A moving picture's thumbnails and descriptor, of its poster frame, " +
      'are made by its job within seconds after. No setting puts part of it off.',
  },
  retention: { title: 'Retention', intro: 'How long settled outbox rows, deliveries and webhook attempts are kept.' },
  accounts: { title: 'Accounts', intro: 'Sessions and sign-up.' },
  devServices: {
    title: 'Development services',
    intro:
      'Settings of the managed local Elasticsearch node and S3Proxy (`imgpost es`, `imgpost s3`) that development ' +
      'and tests use, and of the Java and Maven they run with. A deployment that sets `ELASTICSEARCH_URL` ' +
      'and its own object store needs none of them.',
  },
  tests: {
    title: 'Test-only knobs',
    intro: 'Settings the test suite uses to make behaviour observable or fast. Not for a deployment.',
  },
} as const;

export type Group = keyof typeof GROUPS;

/** How a setting's text is read: a zod schema from the raw string, and what it accepts, for the reference. */
export interface ValueType<T> {
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  accepts: string;
}

export interface Declaration<T> {
  env: string;
  type: ValueType<T>;
  /** The text used when the variable is unset or empty (a function: computed on the machine). */
  default?: string | (() => string);
  /** The default as the reference shows it, when it is not `default` itself (computed or derived). */
  shownDefault?: string;
  /** One line for the reference. */
  doc: string;
}

export class Setting<T> {
  constructor(
    readonly group: Group,
    readonly declaration: Declaration<unknown>,
    private readonly parse: (raw: string | undefined, name: string) => T,
  ) {}

  get env(): string {
    return this.declaration.env;
  }

  /** This setting's value in `env`; an empty variable counts as unset, as deployment tools write them. */
  read(env: NodeJS.ProcessEnv): T {
    const raw = env[this.env];
    return this.parse(raw === '' ? undefined : raw, this.env);
  }

  /** The value of a text given directly, with `name` as the setting an error names. */
  readText(raw: string, name: string): T {
    return this.parse(raw, name);
  }
}

export const invalid = (name: string, value: string | undefined, why: string): ConfigError =>
  new ConfigError(`invalid configuration: ${name}=${JSON.stringify(value ?? '')}: ${why}`);

export function parseWith<T>(type: ValueType<T>, raw: string, name: string): T {
  const parsed = type.schema.safeParse(raw);
  if (!parsed.success) throw invalid(name, raw, parsed.error.issues[0].message);
  return parsed.data;
}

/** A declaring function for one group: a setting with a default gives T, one without T | undefined. */
export function inGroup(group: Group) {
  function declare<T>(d: Declaration<T> & { default: string | (() => string) }): Setting<T>;
  function declare<T>(d: Declaration<T>): Setting<T | undefined>;
  function declare<T>(d: Declaration<T>): Setting<T | undefined> {
    return new Setting(group, d as Declaration<unknown>, (raw, name) => {
      const text = raw ?? (typeof d.default === 'function' ? d.default() : d.default);
      return text === undefined ? undefined : parseWith(d.type, text, name);
    });
  }
  return declare;
}

export interface Tree {
  readonly [key: string]: Setting<unknown> | Tree;
}

type ValueOf<N> = N extends Setting<infer V> ? V : Values<N>;
/** Keys of settings that have no default: optional in the values. */
type Unset<T> = { [K in keyof T]: T[K] extends Setting<infer V> ? (undefined extends V ? K : never) : never }[keyof T];
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The values a tree of declarations parses to, in the same shape; a setting without a default is optional. */
export type Values<T> = Flat<
  { -readonly [K in Exclude<keyof T, Unset<T>>]: ValueOf<T[K]> } & { -readonly [K in Unset<T>]?: ValueOf<T[K]> }
>;

/** Parses every setting of the tree, in declaration order; throws ConfigError naming the first bad one. */
export function parseTree<T extends Tree>(tree: T, env: NodeJS.ProcessEnv): Values<T> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(tree)) {
    out[key] = node instanceof Setting ? node.read(env) : parseTree(node, env);
  }
  return out as Values<T>;
}

/** Every setting of a tree, in declaration order. */
export function settingsOf(tree: Tree): Setting<unknown>[] {
  return Object.values(tree).flatMap((node) => (node instanceof Setting ? [node] : settingsOf(node)));
}

// The value types: each says what it accepts in the words the reference shows.

export const text = (min = 1, message = `at least ${min} characters`): ValueType<string> => ({
  schema: z.string().min(min, message),
  accepts: min > 1 ? `text, ${message}` : 'text',
});

export const pattern = (re: RegExp, message: string, accepts: string): ValueType<string> => ({
  schema: z.string().regex(re, message),
  accepts,
});

/** Any non-empty text turns it on. */
export const anyText: ValueType<boolean> = { schema: z.string().transform((v) => v !== ''), accepts: 'any text: on' };

export function wholeNumber(min: number, max?: number): ValueType<number> {
  const why = `expected a whole number ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}`;
  const base = z.coerce.number({ invalid_type_error: why }).int(why).min(min, why);
  return { schema: max === undefined ? base : base.max(max, why), accepts: why.replace('expected a ', '') };
}

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['0', 'false', 'no', 'off'];

export const flag: ValueType<boolean> = {
  schema: z
    .string()
    .transform((v) => v.toLowerCase())
    .refine((v) => ON.includes(v) || OFF.includes(v), 'expected 1 or 0 (or true/false, yes/no, on/off)')
    .transform((v) => ON.includes(v)),
  accepts: '`1` or `0` (also true/false, yes/no, on/off)',
};

export function oneOf<const V extends readonly [string, ...string[]]>(values: V): ValueType<V[number]> {
  return {
    schema: z.enum(values as unknown as [V[number], ...V[number][]], {
      errorMap: () => ({ message: `expected one of ${values.join(', ')}` }),
    }) as unknown as z.ZodType<V[number], z.ZodTypeDef, unknown>,
    accepts: values.map((v) => `\`${v}\``).join(', '),
  };
}

const httpUrl = z
  .string()
  .url('must be an http(s) URL')
  .refine((u) => /^https?:/.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

/** An http(s) URL, without its trailing slashes. */
export const url: ValueType<string> = { schema: httpUrl, accepts: 'an http(s) URL' };

/** One URL, or a comma-separated list of them (the nodes of a cluster), normalised. */
export const urlList: ValueType<string> = {
  schema: z
    .string()
    .transform((v) => v.split(',').map((u) => u.trim()))
    .pipe(z.array(httpUrl).min(1))
    .transform((urls) => urls.join(',')),
  accepts: 'http(s) URLs, comma-separated',
};

/** A value type whose text a function turns into the value, or refuses with the message it throws. */
export function parsedBy<T>(accepts: string, parse: (raw: string) => T): ValueType<T> {
  return {
    schema: z.string().transform((v, ctx) => {
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
        return z.NEVER;
      }
    }),
    accepts,
  };
}

/** A directory, resolved to an absolute path. */
export const directory: ValueType<string> = {
  schema: text().schema.transform((d) => path.resolve(d)),
  accepts: 'a directory',
};
