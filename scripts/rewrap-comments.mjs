/**
 * `node scripts/rewrap-comments.mjs [--check] [file ...]`: re-wraps comment lines longer than the line
 * limit (120, as eslint.config.js's max-len) so that they fit, without changing a word of them. The
 * formatter (`npm run format`) wraps code but leaves comments as they are; run this after it.
 *
 * - A long line of a paragraph hands the words that do not fit to the paragraph's next line, or to a
 *   new line when it is the last one; the other line breaks stay where the author put them.
 *   A paragraph is a run of `//` lines, or of lines inside a block comment, that start alike; a blank
 *   comment line, a list item, a JSDoc tag, a table row or a fenced code block starts another.
 * - A one-line block comment (`/** … *\/`) too long for its line becomes a block of several lines.
 * - A comment at the end of a line of code moves to a line of its own above that code.
 * - A line indented further than its comment's prose (an example, a command), unless it is or hangs under a
 *   list item, and a single word longer than the room left (a URL, a path) stay as they are, over the limit.
 *
 * Without file arguments it takes every TypeScript and JavaScript file git knows, except the generated
 * client schema. With `--check` it changes nothing and exits 1 when a file would change. Running it
 * twice changes nothing the second time.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parser } from 'typescript-eslint';

const LIMIT = 120;
const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['src/gallery/client/api-schema.d.ts']);

const args = process.argv.slice(2);
const check = args.includes('--check');
const given = args.filter((a) => a !== '--check');
const files =
  given.length > 0
    ? given
    : execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.mts', '*.js', '*.mjs', '*.cjs'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .split('\n')
        .filter((f) => f && !SKIP.has(f) && fs.existsSync(path.join(ROOT, f)));

/** A list item's marker, whose continuation lines hang under the item's text. */
const LIST_ITEM = /^([-*+]|\d+[.)])\s+/;

/**
 * One comment line split into `lead` (indentation and comment marker: `  // `, `   * `, `  /** `) and
 * `text`; `next` is the lead the paragraph's following lines have. `text` empty: a paragraph break.
 */
function splitLine(line, inBlock, isFirstOfBlock) {
  let m;
  if (!inBlock) {
    m = /^(\s*\/\/+\s*)(.*)$/.exec(line);
    return m && { lead: m[1], next: m[1], text: m[2] };
  }
  if (isFirstOfBlock) {
    m = /^(\s*)(\/\*\*?\s*)(.*)$/.exec(line);
    return m && { lead: m[1] + m[2], next: `${m[1]} * `, text: m[3] };
  }
  // The closing line alone ends the last paragraph.
  if (/^\s*\*\/\s*$/.test(line)) return { lead: line, next: line, text: '' };
  m = /^(\s*\*?\s*)(.*)$/.exec(line);
  return m && { lead: m[1], next: m[1], text: m[2] };
}

/** Whether a comment line's text may share a paragraph with the line before it. */
const continues = (text) =>
  text.trim() !== '' &&
  text.trim() !== '*/' &&
  !LIST_ITEM.test(text) &&
  !text.startsWith('@') &&
  !text.startsWith('|') &&
  !text.startsWith('```');

/**
 * Re-wraps the lines [from, to) of `lines` (all of one comment or of a run of `//` comments), in
 * place; returns the number of lines added.
 */
function rewrapRun(lines, from, to, inBlock) {
  const parsed = [];
  for (let i = from; i < to; i++) parsed.push(splitLine(lines[i], inBlock, inBlock && i === from));
  if (parsed.some((p) => p === null)) return 0;
  const out = [];
  let fenced = false;
  for (let i = 0; i < parsed.length; i++) {
    const p = parsed[i];
    if (p.text.trimStart().startsWith('```')) fenced = !fenced;
    const previous = out[out.length - 1];
    const paragraph = !fenced && i > 0 && previous.text !== '' && continues(p.text) && p.lead === previous.next;
    // Prose starts one space after the comment marker; a line indented further (an example, a command) is
    // left as it is, unless it hangs under a list item.
    const root = paragraph ? previous.root : { lead: p.lead, fenced, item: LIST_ITEM.test(p.text) };
    out.push({ ...p, paragraph, root });
    // A list item's later lines hang under its text.
    const item = LIST_ITEM.exec(p.text);
    if (item) out[out.length - 1].next = p.next + ' '.repeat(item[0].length);
  }
  for (let i = 0; i < out.length; i++) {
    const line = out[i];
    if (line.root.fenced || !(line.root.item || /(\/\/|\*) $/.test(line.root.lead))) continue;
    while (line.lead.length + line.text.length > LIMIT) {
      const room = LIMIT - line.lead.length;
      const cut = line.text.lastIndexOf(' ', room);
      if (cut <= 0 || line.text.slice(0, cut).trim() === '') break;
      const rest = line.text.slice(cut + 1).trimStart();
      line.text = line.text.slice(0, cut).trimEnd();
      const following = out[i + 1];
      if (following && following.paragraph && following.lead === line.next && !following.text.startsWith('*/')) {
        following.text = `${rest} ${following.text}`;
      } else {
        out.splice(i + 1, 0, { lead: line.next, next: line.next, text: rest, paragraph: true, root: line.root });
      }
    }
  }
  const text = out.map((l) => (l.lead + l.text).trimEnd());
  lines.splice(from, to - from, ...text);
  return text.length - (to - from);
}

/** The file's text with its comments re-wrapped (the same text when nothing is too long). */
export function rewrap(source, filePath) {
  const { ast } = parser.parseForESLint(source, { comment: true, tokens: true, range: true, loc: true, filePath });
  const lines = source.split('\n');
  const lineStart = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStart.push(i + 1);
  const over = (n) => lines[n].length > LIMIT;

  // Tokens spanning lines (template literals): a line starting inside one is not code to put a comment above.
  const spanning = ast.tokens.filter((t) => t.loc.start.line !== t.loc.end.line);
  const insideToken = (offset) => spanning.some((t) => t.range[0] < offset && offset < t.range[1]);

  // Edits from the bottom up, so that the line numbers of those still to do stay right.
  const comments = [...ast.comments].sort((a, b) => b.range[0] - a.range[0]);
  let lineRun = null; // a run of own-line `//` comments being gathered, bottom up: [first, last] (0-based)
  // The first line edited so far: a comment reaching it (two on one line) is left as it is.
  let floor = Infinity;
  const flushRun = () => {
    if (lineRun && lines.slice(lineRun[0], lineRun[1] + 1).some((l) => l.length > LIMIT)) {
      rewrapRun(lines, lineRun[0], lineRun[1] + 1, false);
      floor = lineRun[0];
    }
    lineRun = null;
  };
  for (const c of comments) {
    const first = c.loc.start.line - 1;
    const last = c.loc.end.line - 1;
    if (last >= floor || (lineRun && last >= lineRun[0])) {
      flushRun();
      continue;
    }
    const before = lines[first].slice(0, c.loc.start.column);
    const after = lines[last].slice(c.loc.end.column);
    const ownLine = before.trim() === '' && after.trim() === '';
    if (c.type === 'Line' && ownLine) {
      if (lineRun && lineRun[0] === first + 1 && lines[first].indexOf('//') === lines[lineRun[0]].indexOf('//')) {
        lineRun[0] = first;
      } else {
        flushRun();
        lineRun = [first, first];
      }
      continue;
    }
    flushRun();
    if (c.type === 'Line') {
      // At the end of a line of code: to a line of its own above it, when that makes the line fit.
      if (!over(first) || before.trimEnd().length > LIMIT || after.trim() !== '') continue;
      const indent = /^\s*/.exec(before)[0];
      if (insideToken(lineStart[first] + indent.length)) continue;
      lines.splice(first, 1, `${indent}//${c.value}`, before.trimEnd());
      if (over(first)) rewrapRun(lines, first, first + 1, false);
      floor = first;
      continue;
    }
    if (!ownLine) continue;
    if (first === last) {
      if (!over(first)) continue;
      // `/** text */` on one line: a block of its own lines.
      const m = /^(\s*)(\/\*\*?)\s*(.*?)\s*\*\/\s*$/.exec(lines[first]);
      if (!m) continue;
      lines.splice(first, 1, `${m[1]}${m[2]}`, `${m[1]} * ${m[3]}`, `${m[1]} */`);
      rewrapRun(lines, first, first + 3, true);
      floor = first;
      continue;
    }
    if (lines.slice(first, last + 1).some((l) => l.length > LIMIT)) {
      rewrapRun(lines, first, last + 1, true);
      floor = first;
    }
  }
  flushRun();
  return lines.join('\n');
}

let changed = 0;
for (const file of files) {
  const full = path.resolve(ROOT, file);
  const source = fs.readFileSync(full, 'utf8');
  const result = rewrap(source, full);
  if (result === source) continue;
  changed++;
  if (check) process.stdout.write(`${path.relative(ROOT, full)}\n`);
  else fs.writeFileSync(full, result);
}
process.stdout.write(`${check ? 'would re-wrap' : 're-wrapped'} comments in ${changed} of ${files.length} files\n`);
if (check && changed > 0) process.exitCode = 1;
