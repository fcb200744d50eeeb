// Theme: 'system' (follow the desktop), 'light' or 'dark', kept in this browser.
export function applyTheme(choice = localStorage.getItem('simplylock-theme') ?? 'system') {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}
