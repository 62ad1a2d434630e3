declare const plugin: {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  register(api: { pluginConfig?: unknown; logger?: { warn(message: string): unknown }; on(event: string, handler: unknown, options: unknown): unknown }): void;
};
export default plugin;
