/**
 * The markdown twin of a course page: its MDX body with the components turned back into markdown —
 * a key strip becomes the key as code, a source panel a fenced block of the same source, a part of the
 * picker a heading, the live explorer the `curl` calls of its experiments — followed by the references
 * and related links the page ends with. Links to course pages point at their twins. Used for
 * `<page>.md`, `/llms-full.txt` and the search index.
 */
import { glossaryHref, glossaryMarkdown } from './glossary.ts';
import { twinOf } from './paths.ts';
import { readSymbol } from './source.ts';

export interface TwinPage {
  title: string;
  description: string;
  route: string;
  body: string;
  references: { title: string; url: string; note: string }[];
  related: { title: string; href: string; note: string }[];
}

const FENCE: Record<string, string> = { ts: 'ts', lua: 'lua', rust: 'rust' };

/** A self-closing component tag; a quoted attribute value may hold `>` (`value="emq:{q}:<type>"`). */
const selfClosing = (name: string) => new RegExp(`<${name}\\b(?:[^>"]|"[^"]*")*\\/>`, 'g');

/** A course route as its twin, keeping the fragment: `/a/b/#x` → `/a/b.md#x`; other links unchanged. */
export function twinLink(href: string): string {
  const m = /^(\/[^#?\s]*?)(#[^\s]*)?$/.exec(href);
  if (!m || /\.[a-z]+$/i.test(m[1]!)) return href;
  return twinOf(m[1]!.endsWith('/') ? m[1]! : m[1]! + '/') + (m[2] ?? '');
}

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

export interface TwinOptions {
  /** project root the source panels read from */
  root?: string;
  /** markdown for the collection-driven components: DiveCards */
  cards?: { module: string; dives: string };
  /** markdown for `<LiveExplorer part=… />`: its experiments as calls of the JSON API */
  explorer?: (part: string) => string;
}

/** The pages as a markdown list of links, for `<DiveCards />`. */
export function cardList(pages: { title: string; route: string; description: string }[]): string {
  return pages.map((p) => `- [${p.title}](${twinOf(p.route)}): ${p.description}`).join('\n');
}

export function toMarkdown(page: TwinPage, options: TwinOptions = {}): string {
  const root = options.root ?? process.cwd();
  let body = page.body
    .replace(/^import\s.+?;?\s*$/gm, '')
    // a link that opens the explorer on the page points at the explorer's section of the twin
    .replace(
      /<a\b[^>]*data-explorer-open="[^"]*"[^>]*>([^<]*)<\/a>/g,
      (_, text) => `[${text}](#live-explorer)`,
    )
    .replace(/<a\s+href="([^"]*)"[^>]*>([^<]*)<\/a>/g, (_, href, text) => `[${text}](${href})`)
    // a term defined in place is a link to its glossary entry; the glossary is the list of them all
    .replace(/<Term\s+id="([^"]*)"\s*>(.*?)<\/Term>/g, (_, id, text) => `[${text}](${glossaryHref(id)})`)
    .replace(selfClosing('Glossary'), () => glossaryMarkdown())
    .replace(/\]\((\/[^)\s]*)\)/g, (_, href) => `](${twinLink(href)})`)
    .replace(selfClosing('KeyStrip'), (tag) => `\`${attrs(tag).value}\``)
    .replace(selfClosing('DiveCards'), (tag) =>
      attrs(tag).show === 'module' ? (options.cards?.module ?? '') : (options.cards?.dives ?? ''),
    )
    .replace(selfClosing('SourcePanel'), (tag) => {
      const a = attrs(tag);
      const span = readSymbol(root, a.file!, a.symbol ?? null);
      const label = a.symbol ? `\`${a.symbol}\` in \`${a.file}\`` : `\`${a.file}\``;
      return `${label}, lines ${span.startLine}–${span.endLine}:\n\n\`\`\`${FENCE[span.lang]}\n${span.text}\n\`\`\``;
    })
    .replace(selfClosing('ExplorerSlot'), '')
    .replace(selfClosing('LiveExplorer'), (tag) => options.explorer?.(attrs(tag).part!) ?? '')
    .replace(/<\/?PartPicker\b[^>]*>/g, '')
    .replace(/<Part\b[^>]*>/g, (tag) => {
      const a = attrs(tag);
      return `### ${a.label}${a.says ? ` — ${a.says}` : ''}`;
    })
    .replace(/<\/Part>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

  const parts = [`# ${page.title}`, `> ${page.description}`, body];
  if (page.references.length) {
    parts.push('## References', page.references.map((r) => `- [${r.title}](${r.url}): ${r.note}`).join('\n'));
  }
  if (page.related.length) {
    parts.push(
      '## Related in this course',
      page.related.map((r) => `- [${r.title}](${twinLink(r.href)}): ${r.note}`).join('\n'),
    );
  }
  return parts.join('\n\n') + '\n';
}

/** Splits a twin into sections by heading, for the search index. */
export function sections(markdown: string): { heading: string; slug: string; text: string }[] {
  const out: { heading: string; slug: string; text: string }[] = [];
  let current = { heading: '', slug: '', text: '' };
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const h = !inFence && /^(#{1,3})\s+(.*)$/.exec(line);
    if (h) {
      if (current.text.trim() || current.heading) out.push(current);
      const heading = h[2]!;
      current = { heading, slug: h[1] === '#' ? '' : slugify(heading), text: '' };
    } else current.text += line + '\n';
  }
  out.push(current);
  return out.map((s) => ({ ...s, text: s.text.replace(/\s+/g, ' ').trim() }));
}

/** Markdown as the reader sees it rendered, for search snippets: no backticks, link targets, emphasis
 * marks, fences or table rules. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```\w*/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/(^|\s)>\s/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The same slugs as Astro's headings (github-slugger), for the headings this course uses. */
export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * Twins put one after another (/llms-full.txt) with every heading's anchor unique: a heading whose slug
 * another twin (or the same one) also has — every page's "References", "Live explorer"… — is named
 * for its page (`## References — The reserve`), and the twin's own links to it (`](#references)`)
 * follow. Headings inside code fences are code, left alone.
 */
export function withUniqueAnchors(twins: { title: string; text: string }[]): string[] {
  const headingsOf = (text: string) => sections(text).filter((s) => s.slug);
  const count = new Map<string, number>();
  for (const twin of twins)
    for (const { slug } of headingsOf(twin.text)) count.set(slug, (count.get(slug) ?? 0) + 1);
  return twins.map(({ title, text }) => {
    const renamed = new Map<string, string>();
    let inFence = false;
    const lines = text.split('\n').map((line) => {
      if (line.startsWith('```')) inFence = !inFence;
      const h = !inFence && /^(#{2,3})\s+(.*)$/.exec(line);
      if (!h || (count.get(slugify(h[2]!)) ?? 0) < 2) return line;
      const heading = `${h[2]} — ${title}`;
      renamed.set(slugify(h[2]!), slugify(heading));
      return `${h[1]} ${heading}`;
    });
    return lines
      .join('\n')
      .replace(/\]\(#([^)\s]+)\)/g, (whole, slug: string) =>
        renamed.has(slug) ? `](#${renamed.get(slug)})` : whole,
      );
  });
}
