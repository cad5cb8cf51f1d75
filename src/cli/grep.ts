export async function runGrepCommand(): Promise<number> { return 5; }
