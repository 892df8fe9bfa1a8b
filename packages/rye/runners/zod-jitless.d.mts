export function preferJitlessZod(): void;
