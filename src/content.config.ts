import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { z } from 'astro/zod';

/** A link out of the course: one of the module's sources. */
const reference = z.object({
  title: z.string(),
  url: z.url(),
  note: z.string(),
});

/** A link to another page (or section) of this course. */
const related = z.object({
  title: z.string(),
  href: z.string().startsWith('/'),
  note: z.string(),
});

/**
 * The course: one MDX file per page. `route` is the page's stable URL; `order` is its place in the
 * reading sequence (previous/next links, the sidebar, llms.txt).
 */
const course = defineCollection({
  loader: glob({ base: './content', pattern: '**/*.mdx' }),
  schema: z.object({
    title: z.string(),
    description: z.string(),
    route: z.string().regex(/^\/([a-z0-9-]+\/)*$/),
    kind: z.enum(['home', 'module', 'dive']),
    order: z.number().int().nonnegative(),
    eyebrow: z.string(),
    navLabel: z.string(),
    references: z.array(reference).default([]),
    related: z.array(related).default([]),
  }),
});

export const collections = { course };
