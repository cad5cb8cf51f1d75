export async function runViewCommand(): Promise<number> { return 5; }
