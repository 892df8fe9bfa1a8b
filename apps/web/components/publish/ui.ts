/** Tailwind class strings shared by the publish and manage forms (one look, visible focus everywhere). */
const focus = "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600";

export const buttonPrimary = `inline-flex items-center justify-center rounded-md bg-brand-700 px-4 py-2 text-sm font-medium text-white hover:bg-brand-600 disabled:cursor-not-allowed disabled:bg-neutral-400 disabled:text-neutral-900 dark:disabled:bg-neutral-700 dark:disabled:text-neutral-300 ${focus}`;
export const buttonSecondary = `inline-flex items-center justify-center rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-900 hover:bg-neutral-100 disabled:cursor-not-allowed disabled:opacity-60 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800 ${focus}`;
export const buttonDanger = `inline-flex items-center justify-center rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-600 disabled:cursor-not-allowed disabled:opacity-60 ${focus}`;
export const input = `block w-full rounded-md border border-neutral-400 bg-white px-3 py-1.5 text-sm text-neutral-900 dark:border-neutral-600 dark:bg-neutral-900 dark:text-neutral-100 ${focus}`;
export const label = "block text-sm font-medium";
export const help = "text-sm text-neutral-600 dark:text-neutral-400";
export const card = "rounded-lg border border-neutral-200 p-4 sm:p-5 dark:border-neutral-800";
export const link = `font-medium text-brand-700 underline hover:no-underline dark:text-brand-300 ${focus}`;
