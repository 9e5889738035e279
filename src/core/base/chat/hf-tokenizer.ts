/**
 * ChatTokenizer over @huggingface/transformers' AutoTokenizer: a Hugging Face hub id (downloaded
 * once into the library's cache) or a local folder holding tokenizer.json + tokenizer_config.json
 * (read from disk only; the library is never allowed to reach the network for it).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { FileFormatError, UserError } from "../errors";
import type { ChatMessage, ChatTokenizer } from "./tokenizer";
import { wordIdsEncoder, type Encode } from "./word-ids-encoder";

/** The slice of transformers.js' PreTrainedTokenizer this module uses (its own types are loose). */
interface HfTokenizer {
  chat_template?: unknown;
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
  get_vocab(): Map<string, number>;
  apply_chat_template(messages: ChatMessage[], options: Record<string, unknown>): unknown;
}

export interface LoadTokenizerOptions {
  /** Text of a `.jinja` chat template that replaces the tokenizer's own. */
  chatTemplate?: string;
  /** Where hub downloads are cached (default: the library's own cache folder). */
  cacheDir?: string;
}

/**
 * True when `source` means a folder on disk rather than a hub id ("org/name"): it exists, or it is
 * written like a path, so a mistyped folder gives a clear error instead of a hub download attempt.
 */
function isLocalSource(source: string): boolean {
  if (existsSync(source)) return true;
  return /^(\.|\/|~|[A-Za-z]:)/.test(source) || source.includes("\\") || source.split("/").length > 2;
}

/**
 * The special ids of a tokenizer whose decoding joins piecewise (ChatTokenizer.piecewiseSpecialIds):
 * a ByteLevel decoder maps each token to its bytes and decodes them as UTF-8, so a sequence decodes
 * to its pieces' texts joined, unless the tokenizer cleans up spaces or trims a word suffix after.
 * Read off transformers.js's tokenizer object; where its fields are not as expected, undefined
 * (callers decode, as before).
 */
function piecewiseSpecials(tok: HfTokenizer): ReadonlySet<number> | undefined {
  const inner = (
    tok as unknown as {
      _tokenizer?: {
        decoder?: { config?: { type?: unknown }; end_of_word_suffix?: unknown };
        clean_up_tokenization_spaces?: unknown;
      };
    }
  )._tokenizer;
  const decoder = inner?.decoder;
  if (
    decoder?.config?.type !== "ByteLevel" ||
    decoder.end_of_word_suffix ||
    inner?.clean_up_tokenization_spaces !== false
  )
    return undefined;
  const ids = (tok as unknown as { all_special_ids?: unknown }).all_special_ids;
  return Array.isArray(ids) && ids.every((id) => Number.isInteger(id)) ? new Set(ids as number[]) : undefined;
}

function shortHash(...parts: (string | Buffer)[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex").slice(0, 12);
}

class TransformersChatTokenizer implements ChatTokenizer {
  private readonly tok: HfTokenizer;
  readonly encode: Encode;

  constructor(
    readonly name: string,
    vocabulary: LoadedVocabulary,
    private readonly chatTemplate: string | undefined,
  ) {
    this.tok = vocabulary.tok;
    this.encode = vocabulary.encode;
  }

  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string {
    if (ids.length === 0) return ""; // the library throws on an empty list; a sampler may return one
    return this.tok.decode([...ids], { skip_special_tokens: options?.skipSpecialTokens ?? false });
  }

  private piecewise: { specials: ReadonlySet<number> | undefined } | undefined;

  piecewiseSpecialIds(): ReadonlySet<number> | undefined {
    return (this.piecewise ??= { specials: piecewiseSpecials(this.tok) }).specials;
  }

  private vocab: Map<string, number> | undefined;

  tokenId(token: string): number {
    // An exact vocabulary lookup: convert_tokens_to_ids would quietly fall back to the unknown id.
    this.vocab ??= this.tok.get_vocab();
    const id = this.vocab.get(token);
    if (id === undefined) throw new UserError(`tokenizer ${this.name} has no single token "${token}"`);
    return id;
  }

  renderChat(messages: ChatMessage[], options: { addGenerationPrompt: boolean; thinking?: boolean }): string {
    const text = this.tok.apply_chat_template(messages, {
      tokenize: false,
      add_generation_prompt: options.addGenerationPrompt,
      enable_thinking: options.thinking ?? false,
      ...(this.chatTemplate !== undefined ? { chat_template: this.chatTemplate } : {}),
    });
    if (typeof text !== "string") throw new Error("chat template rendering did not return text");
    return text;
  }
}

/**
 * Newer hub repos keep the template in its own file, which AutoTokenizer does not read (only
 * processors do): fetch it like the library fetches tokenizer files, and keep it in the same cache
 * folder so later loads work offline.
 */
const TEMPLATE_FILE = "chat_template.jinja";

interface HubEnv {
  remoteHost: string;
  remotePathTemplate: string;
  cacheDir: string | null;
  allowRemoteModels: boolean;
  fetch: (input: string) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;
}

async function hubChatTemplate(source: string, env: HubEnv): Promise<string> {
  const cached = env.cacheDir ? join(env.cacheDir, source, TEMPLATE_FILE) : undefined;
  if (cached && existsSync(cached)) return readFileSync(cached, "utf8");
  const missing = `tokenizer ${source} has no chat template in tokenizer_config.json and no ${TEMPLATE_FILE}`;
  if (!env.allowRemoteModels) throw new UserError(`${missing} in the cache (downloads are disabled)`);
  const url =
    env.remoteHost.replace(/\/?$/, "/") +
    env.remotePathTemplate.replaceAll("{model}", source).replaceAll("{revision}", "main") +
    TEMPLATE_FILE;
  let response;
  try {
    response = await env.fetch(url);
  } catch (e) {
    throw new UserError(`${missing} in the cache, and fetching ${url} failed: ${(e as Error).message}`);
  }
  if (!response.ok) throw new UserError(`${missing} (${url}: HTTP ${response.status}); give one as a .jinja file`);
  const text = await response.text();
  if (cached) {
    mkdirSync(dirname(cached), { recursive: true });
    writeFileSync(cached, text);
  }
  return text;
}

const cache = new Map<string, Promise<ChatTokenizer>>();

/** A parsed vocabulary, shared by every template paired with it. */
interface LoadedVocabulary {
  tok: HfTokenizer;
  /** Text to ids with no special tokens added: the memoizing encoder where the tokenizer allows it. */
  encode: Encode;
  /** Hub id, or folder name + hash of its tokenizer files. */
  name: string;
  /** The repo's chat_template.jinja, used when tokenizer_config.json has no template. */
  separateTemplate?: { text: string; tagName: boolean };
}

const vocabularies = new Map<string, Promise<LoadedVocabulary>>();

/** Caches a promise, forgetting it if it fails (a load without network or with a typo may be retried). */
function memo<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    p = make();
    map.set(key, p);
    p.catch(() => map.delete(key));
  }
  return p;
}

/**
 * A tokenizer with its chat template, cached per process: loading Qwen's 11 MB tokenizer.json takes
 * about a second, and is done once per source whatever templates are paired with it. `source` is a
 * hub id such as "Qwen/Qwen3.5-4B" or a local folder.
 */
export function loadTokenizer(source: string, options: LoadTokenizerOptions = {}): Promise<ChatTokenizer> {
  const key = JSON.stringify([source, options.chatTemplate ?? null, options.cacheDir ?? null]);
  return memo(cache, key, async () => {
    if (options.chatTemplate === undefined && isLocalSource(source)) refuseFolderWithoutTemplate(resolve(source));
    const vocab = await memo(vocabularies, JSON.stringify([source, options.cacheDir ?? null]), () =>
      loadVocabulary(source, options),
    );
    if (options.chatTemplate !== undefined) {
      return new TransformersChatTokenizer(
        `${vocab.name}+template:${shortHash(options.chatTemplate)}`,
        vocab,
        options.chatTemplate,
      );
    }
    if (vocab.tok.chat_template) return new TransformersChatTokenizer(vocab.name, vocab, undefined);
    const separate = vocab.separateTemplate;
    if (!separate) {
      throw new UserError(
        `tokenizer ${vocab.name} has no chat template (neither in tokenizer_config.json nor ${TEMPLATE_FILE}); give one as a .jinja file`,
      );
    }
    const name = separate.tagName ? `${vocab.name}+template:${shortHash(separate.text)}` : vocab.name;
    return new TransformersChatTokenizer(name, vocab, separate.text);
  });
}

/** Fails before parsing the (large) tokenizer.json when a folder has no template anywhere. */
function refuseFolderWithoutTemplate(folder: string): void {
  const config = join(folder, "tokenizer_config.json");
  if (!existsSync(config) || existsSync(join(folder, TEMPLATE_FILE))) return; // missing files are reported by the load
  let parsed: { chat_template?: unknown };
  try {
    parsed = JSON.parse(readFileSync(config, "utf8")) as { chat_template?: unknown };
  } catch (e) {
    throw new FileFormatError(config, undefined, `not valid JSON: ${(e as Error).message}`);
  }
  if (!parsed.chat_template) {
    throw new UserError(
      `tokenizer folder ${folder} has no chat template (neither in tokenizer_config.json nor ${TEMPLATE_FILE}); give one as a .jinja file`,
    );
  }
}

/** Vocabularies this thread has loaded or is loading (tests that check a thread never loads one). */
export function loadedVocabularies(): number {
  return vocabularies.size;
}

/** Forgets loaded tokenizers (tests that load the same source twice on purpose). */
export function forgetLoadedTokenizers(): void {
  cache.clear();
  vocabularies.clear();
}

async function loadVocabulary(source: string, options: LoadTokenizerOptions): Promise<LoadedVocabulary> {
  const { AutoTokenizer, env } = await import("@huggingface/transformers");
  if (isLocalSource(source)) {
    const folder = resolve(source);
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new UserError(`tokenizer folder not found: ${folder}`);
    for (const file of ["tokenizer.json", "tokenizer_config.json"]) {
      if (!existsSync(join(folder, file)))
        throw new UserError(`${folder}: no ${file}; a tokenizer folder needs tokenizer.json and tokenizer_config.json`);
    }
    // An absolute path is never taken for a hub id, and local_files_only forbids any download.
    const tok = (await AutoTokenizer.from_pretrained(folder, { local_files_only: true })) as unknown as HfTokenizer;
    const files = ["tokenizer.json", "tokenizer_config.json"].map((f) => readFileSync(join(folder, f)));
    const separate = join(folder, TEMPLATE_FILE);
    return {
      tok,
      encode: encoderOf(tok),
      name: `${basename(folder)}@${shortHash(...files)}`,
      separateTemplate: existsSync(separate) ? { text: readFileSync(separate, "utf8"), tagName: true } : undefined,
    };
  }
  if (options.cacheDir) env.cacheDir = options.cacheDir;
  let tok: HfTokenizer;
  try {
    tok = (await AutoTokenizer.from_pretrained(source)) as unknown as HfTokenizer;
  } catch (e) {
    throw new UserError(
      `could not load tokenizer "${source}" from the Hugging Face hub or its cache: ${(e as Error).message}`,
    );
  }
  // The hub id (revision main) already identifies the repo's own template file.
  const separateTemplate = tok.chat_template ? undefined : { text: await hubChatTemplate(source, env), tagName: false };
  return { tok, encode: encoderOf(tok), name: source, separateTemplate };
}

function encoderOf(tok: HfTokenizer): Encode {
  return wordIdsEncoder(tok) ?? ((text) => tok.encode(text, { add_special_tokens: false }));
}
