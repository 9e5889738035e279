import type { Plugin } from "esbuild";

export function environmentFolders(envsDir: string): { folder: string; light: string[]; code: string[] }[];
export function envFoldersPlugin(): Plugin;
