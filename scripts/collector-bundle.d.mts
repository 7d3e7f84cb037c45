// Types of scripts/collector-bundle.mjs for the TypeScript that imports it (benches, tests).
export declare const ROOT: string;
export declare const BUILD_DIR: string;
export declare const COLLECTOR_ENTRY: string;
export declare const COLLECTOR_HEAP_MIB: number;
export declare function heapLimitSet(execArgv?: string[], nodeOptions?: string): boolean;
export declare function bundleEntry(entry: string, outfile: string): Promise<string>;
export declare function collectorBundle(outfile?: string, bundle?: (entry: string, outfile: string) => Promise<string>, canWrite?: (dir: string) => boolean): Promise<string>;
export declare function runCollector(args?: string[]): Promise<void>;
