// Types of build-stamp.mjs, for the tests that import it (scripts/ is plain JavaScript:
// setup.mjs runs before anything is compiled).

export declare const STAMP_FILE: string;

export declare function inputsDigest(root: string): { digest: string; files: number };

export declare function outputsDigest(root: string): string;

export declare function upToDate(root: string): number | undefined;

export declare function forget(root: string): void;

export declare function record(root: string): void;
