// Where the course explains each error a console line can meet. Free of Node APIs: the page links
// the same sections.

export interface CourseSection {
  title: string;
  href: string;
}

const MODULE = '/protocol/the-owned-keyspace';

const SECTIONS: Record<string, CourseSection> = {
  EMQKEY: {
    title: 'The braced grammar — the server rebuilds every key',
    href: `${MODULE}/braced-grammar/#the-server-rebuilds-every-key`,
  },
  EMQKIND: { title: 'The braced grammar — the job row', href: `${MODULE}/braced-grammar/#the-job-row` },
  CROSSSLOT: {
    title: 'The hashtag & the slot — one queue, one slot',
    href: `${MODULE}/hashtag-and-slot/#one-queue-one-slot`,
  },
  MOVED: {
    title: 'The hashtag & the slot — where cluster support stops',
    href: `${MODULE}/hashtag-and-slot/#where-cluster-support-stops`,
  },
  // ASK is heard only while a slot migrates, from the owner that is moving it
  ASK: {
    title: 'The hashtag & the slot — a slot that moves',
    href: `${MODULE}/hashtag-and-slot/#a-slot-that-moves`,
  },
  // The code the owning cluster node answers: explained where the dive says why the module refuses a cluster.
  EMQWIRE: {
    title: 'The hashtag & the slot — where cluster support stops',
    href: `${MODULE}/hashtag-and-slot/#where-cluster-support-stops`,
  },
  TRYAGAIN: {
    title: 'The hashtag & the slot — why a claim waits out a migration',
    href: `${MODULE}/hashtag-and-slot/#why-a-claim-waits-out-a-migration`,
  },
  EMQSTALE: { title: 'One keyspace, two executors', href: `${MODULE}/#one-keyspace-two-executors` },
};

/** Every error class the course explains (the tests follow each link to its section). */
export const EXPLAINED = Object.keys(SECTIONS);

/** The course section for an error's class (its first word), if the course explains it. */
export function sectionFor(errorClass: string): CourseSection | undefined {
  return Object.hasOwn(SECTIONS, errorClass) ? SECTIONS[errorClass] : undefined;
}
