// The project's one seeded generator, for the generated tests.
export { seededRandom } from '../../server/seeded-random.ts';
