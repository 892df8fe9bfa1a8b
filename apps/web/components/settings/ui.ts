/** Tailwind class strings shared by the sign-in, device and settings pages (one look, visible focus everywhere). */
export const focusRing = "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600";

export const buttonPrimary = `inline-flex items-center justify-center gap-2 rounded-md bg-brand-700 px-4 py-2 text-sm font-medium text-white hover:bg-brand-600 disabled:cursor-not-allowed disabled:opacity-70 ${focusRing}`;
export const buttonSecondary = `inline-flex items-center justify-center gap-2 rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-900 hover:bg-neutral-100 disabled:cursor-not-allowed disabled:opacity-60 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800 ${focusRing}`;
export const buttonDanger = `inline-flex items-center justify-center gap-2 rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-600 disabled:cursor-not-allowed disabled:opacity-60 ${focusRing}`;
export const buttonDangerOutline = `inline-flex items-center justify-center gap-2 rounded-md border border-red-300 px-3 py-1.5 text-sm font-medium text-red-800 hover:bg-red-50 disabled:cursor-not-allowed disabled:opacity-60 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950 ${focusRing}`;
export const input = `block w-full rounded-md border border-neutral-400 bg-white px-3 py-2 text-sm text-neutral-900 placeholder:text-neutral-500 aria-[invalid=true]:border-red-600 dark:border-neutral-600 dark:bg-neutral-900 dark:text-neutral-100 dark:placeholder:text-neutral-400 dark:aria-[invalid=true]:border-red-400 ${focusRing}`;
export const select = `rounded-md border border-neutral-400 bg-white px-2 py-1.5 text-sm text-neutral-900 dark:border-neutral-600 dark:bg-neutral-900 dark:text-neutral-100 ${focusRing}`;
export const labelText = "block text-sm font-medium";
export const help = "text-sm text-neutral-600 dark:text-neutral-400";
export const card = "rounded-lg border border-neutral-200 p-4 sm:p-5 dark:border-neutral-800";
export const link = `font-medium text-brand-700 underline hover:no-underline dark:text-brand-300 ${focusRing}`;
export const code = "rounded bg-neutral-100 px-1 py-0.5 font-mono text-[0.85em] dark:bg-neutral-800";
export const badge = "inline-flex items-center rounded-full border border-neutral-300 px-2 py-0.5 text-xs font-medium text-neutral-700 dark:border-neutral-700 dark:text-neutral-300";
