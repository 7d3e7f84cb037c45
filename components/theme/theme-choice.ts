// The reader's theme: "light" or "dark" pins it, "system" follows the
// operating system (prefers-color-scheme, answered by CSS alone). Remembered
// in localStorage; applied as data-theme on <html> by THEME_SCRIPT before the
// first paint, so a page never flashes in the other theme.

export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export const THEME_STORAGE_KEY = "driftwatch-theme";

export function parseThemeChoice(value: unknown): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}

/**
 * Runs inline in <head>, before the body is parsed. "system" (or nothing
 * stored, or storage refused) leaves data-theme off, and app/dark-theme.css
 * follows the system setting, even when the system switches while the page is open.
 */
export const THEME_SCRIPT = `try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark")document.documentElement.setAttribute("data-theme",t)}catch(e){}`;
