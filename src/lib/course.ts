/** The course as an ordered list of pages, read from the content collection. */
import { getCollection, type CollectionEntry } from 'astro:content';
import { cardList, toMarkdown } from './twin.ts';
import { explorerMarkdown } from './twin-explorer.ts';

export type CoursePage = CollectionEntry<'course'>;

/** Every page in reading order: the home page, the module, then its dives. */
export async function coursePages(): Promise<CoursePage[]> {
  const pages = await getCollection('course');
  return pages.sort((a, b) => a.data.order - b.data.order);
}

export { twinOf } from './paths.ts';

export function neighbours(pages: CoursePage[], page: CoursePage) {
  const i = pages.findIndex((p) => p.id === page.id);
  return { prev: pages[i - 1], next: pages[i + 1] };
}

/** The twin of one page, with the collection-driven parts filled in. */
export function twinText(page: CoursePage, pages: CoursePage[]): string {
  const cards = (kinds: string[]) =>
    cardList(pages.filter((p) => kinds.includes(p.data.kind)).map((p) => p.data));
  return toMarkdown(
    { ...page.data, body: page.body ?? '' },
    {
      cards: { module: cards(['module', 'dive']), dives: cards(['dive']) },
      explorer: explorerMarkdown,
    },
  );
}
