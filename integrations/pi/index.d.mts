export default function littleCanary(pi: { on(event: string, handler: (...args: any[]) => unknown): unknown }): void;
