// Where the course explains each error a console line can meet. Free of Node APIs: the page links
// the same sections.

export interface CourseSection {
  title: string;
  href: string;
}

const MODULE = '/protocol/the-owned-keyspace';

interface Page {
  /** The page's path under the module's, '' for the module's own page. */
  path: string;
  title: string;
}

const OVERVIEW: Page = { path: '', title: 'The owned keyspace' };
const GRAMMAR: Page = { path: 'braced-grammar/', title: 'The braced grammar' };
const HASHTAG: Page = { path: 'hashtag-and-slot/', title: 'The hashtag & the slot' };

/**
 * A section by its heading as the page writes it: the link's text names the page and the heading, and
 * its anchor is the id the site gives that heading (lower case, punctuation dropped, spaces as hyphens).
 */
function section(page: Page, heading: string): CourseSection {
  const anchor = heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replaceAll(' ', '-');
  return {
    title: `${page.title} — ${heading[0]!.toLowerCase()}${heading.slice(1)}`,
    href: `${MODULE}/${page.path}#${anchor}`,
  };
}

const CLUSTER_SUPPORT = section(HASHTAG, 'Where cluster support stops');

const SECTIONS: Record<string, CourseSection> = {
  EMQKEY: section(GRAMMAR, 'The server rebuilds every key'),
  EMQKIND: section(GRAMMAR, 'The job row'),
  CROSSSLOT: section(HASHTAG, 'One queue, one slot'),
  MOVED: CLUSTER_SUPPORT,
  // ASK is heard only while a slot migrates, from the owner that is moving it
  ASK: section(HASHTAG, 'A slot that moves'),
  // The code the owning cluster node answers: explained where the dive says why the module refuses a cluster.
  EMQWIRE: CLUSTER_SUPPORT,
  TRYAGAIN: section(HASHTAG, 'Why a claim waits out a migration'),
  EMQSTALE: section(OVERVIEW, 'One keyspace, two executors'),
};

/** The course section for an error's class (its first word), if the course explains it. */
export function sectionFor(errorClass: string): CourseSection | undefined {
  return Object.hasOwn(SECTIONS, errorClass) ? SECTIONS[errorClass] : undefined;
}
