// <emq-course-progress>: each course nav entry's mark, "2/3" exercises solved in this browser. The
// marks' space is reserved by the nav's CSS, so filling them in moves nothing.

import { onProgress, solvedOf } from '../console/progress-store.ts';

class EmqCourseProgress extends HTMLElement {
  connectedCallback(): void {
    onProgress(() => {
      for (const mark of this.querySelectorAll<HTMLElement>('[data-mark]')) {
        const ids = mark.dataset.mark!.split(' ');
        const done = solvedOf(ids);
        mark.dataset.done = done === ids.length ? 'all' : done > 0 ? 'some' : 'none';
        // the count, then the words that say what it counts ("exercises solved", for a screen reader)
        mark.replaceChildren(
          done === ids.length ? `✓ ${done}/${ids.length}` : `${done}/${ids.length}`,
          mark.lastElementChild!,
        );
      }
    });
  }
}

customElements.define('emq-course-progress', EmqCourseProgress);
