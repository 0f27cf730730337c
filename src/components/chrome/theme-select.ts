// The theme picker: stores the choice and sets data-theme on <html>; "auto" follows the system.
const KEY = 'emq-theme';

for (const label of document.querySelectorAll<HTMLLabelElement>('[data-theme-select]')) {
  const select = label.querySelector('select')!;
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
