export function compileCacheDir(env?: NodeJS.ProcessEnv): string;
export function privateToUser(dir: string): boolean;
export function enablePrivateCompileCache(env?: NodeJS.ProcessEnv): string | null;
