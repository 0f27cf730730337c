// The theme picker, <emq-theme-select>: stores the choice and sets data-theme on <html>; "auto" follows
// the system. A custom element, so it wires itself wherever its markup is, once.
const KEY = 'emq-theme';

class ThemeSelect extends HTMLElement {
  #wired = false;

  connectedCallback() {
    if (this.#wired) return;
    this.#wired = true;
    const select = this.querySelector('select')!;
    let stored: string | null = null;
    try {
      stored = localStorage.getItem(KEY);
    } catch {}
    select.value = stored === 'light' || stored === 'dark' ? stored : 'auto';
    select.addEventListener('change', () => {
      const value = select.value;
      if (value === 'light' || value === 'dark') document.documentElement.dataset.theme = value;
      else delete document.documentElement.dataset.theme;
      try {
        if (value === 'auto') localStorage.removeItem(KEY);
        else localStorage.setItem(KEY, value);
      } catch {}
    });
  }
}

customElements.define('emq-theme-select', ThemeSelect);
