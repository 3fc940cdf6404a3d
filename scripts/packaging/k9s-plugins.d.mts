export declare const K9S_SCOPES: string[];
export interface K9sPlugin {
  shortCut: string;
  description: string;
  scopes: string[];
  command: string;
  args: string[];
  background: boolean;
  confirm: boolean;
}
export declare function k9sPlugins(): { plugins: Record<string, K9sPlugin> };
export declare function k9sPluginsYaml(): string;
