/** Pieces of the account forms: a labelled field with its hint and errors, and the error panel. */
import type { InputHTMLAttributes, ReactNode } from "react";
import { help, input, labelText } from "@/components/settings/ui";

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "className"> {
  id: string;
  label: string;
  hint?: ReactNode;
  errors?: string[] | undefined;
}

/** Label, input, hint and errors, wired with aria-describedby / aria-invalid. */
export function Field({ id, label, hint, errors, ...props }: FieldProps) {
  const described = [hint ? `${id}-hint` : null, errors?.length ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelText}>
        {label}
      </label>
      <input id={id} className={input} aria-invalid={errors?.length ? true : undefined} aria-describedby={described || undefined} {...props} />
      {hint ? (
        <div id={`${id}-hint`} className={help}>
          {hint}
        </div>
      ) : null}
      {errors?.length ? (
        <ul id={`${id}-error`} className="space-y-0.5 text-sm text-red-700 dark:text-red-400">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export interface ShownProblem {
  message: string;
  hint?: string | undefined;
  code?: string | undefined;
}

/** The API's message and hint (role="alert": read out when it appears). */
export function ProblemBox({ problem, title }: { problem: ShownProblem; title?: string }) {
  return (
    <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">
        {title ? `${title}: ` : ""}
        {problem.message}
      </p>
      {problem.hint ? <p className="mt-1">{problem.hint}</p> : null}
    </div>
  );
}

/** A success note (role="status": announced politely). */
export function SuccessBox({ children }: { children: ReactNode }) {
  return (
    <div role="status" className="rounded-md border border-brand-500/50 bg-brand-50 p-3 text-sm text-neutral-900 dark:border-brand-600 dark:bg-neutral-900 dark:text-neutral-100">
      {children}
    </div>
  );
}
