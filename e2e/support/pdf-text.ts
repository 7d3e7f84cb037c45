// The text of a PDF that Chromium printed (Skia's PDF 1.4 writer), page by
// page, without a PDF library: no PDF reader is installed on our machines and
// the project avoids new dependencies for tests. It reads only what Skia
// writes — plain (not compressed) object tables, Flate-compressed streams,
// Type0 fonts with a ToUnicode CMap, and text shown with Tj/TJ inside BT…ET —
// and throws on anything else rather than returning less text than is there.
import zlib from "node:zlib";

interface PdfObject {
  dict: string;
  stream: string | null;
}

export interface PdfText {
  pages: string[];
  /** Every page's text, pages separated by a form feed. */
  text: string;
}

function parseObjects(pdf: string): Map<number, PdfObject> {
  const objects = new Map<number, PdfObject>();
  const re = /(\d+) 0 obj\s*([\s\S]*?)\bendobj/g;
  for (let m = re.exec(pdf); m; m = re.exec(pdf)) {
    const body = m[2]!;
    const at = body.search(/\bstream\r?\n/);
    if (at < 0) {
      objects.set(Number(m[1]), { dict: body, stream: null });
      continue;
    }
    const dict = body.slice(0, at);
    let raw = body.slice(at).replace(/^stream\r?\n/, "");
    raw = raw.slice(0, raw.lastIndexOf("endstream")).replace(/\r?\n$/, "");
    if (/\/ObjStm\b/.test(dict)) throw new Error("pdf-text: compressed object streams are not supported");
    const filter = /\/Filter\s*\/(\w+)/.exec(dict)?.[1];
    if (filter && filter !== "FlateDecode") throw new Error(`pdf-text: unsupported stream filter ${filter}`);
    const stream = filter ? zlib.inflateSync(Buffer.from(raw, "latin1")).toString("latin1") : raw;
    objects.set(Number(m[1]), { dict, stream });
  }
  return objects;
}

const ref = (dict: string, key: string): number | null => {
  const m = new RegExp(`/${key}\\s+(\\d+) 0 R`).exec(dict);
  return m ? Number(m[1]) : null;
};

function hexToString(hex: string): string {
  const clean = hex.replace(/\s+/g, "");
  let out = "";
  for (let i = 0; i + 4 <= clean.length; i += 4) out += String.fromCharCode(parseInt(clean.slice(i, i + 4), 16));
  return out;
}

/** Glyph code (as a 4-digit hex number) → text, from a ToUnicode CMap. */
function parseToUnicode(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(parseInt(m[1]!, 16), hexToString(m[2]!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[[^\]]*\])/g)) {
      const lo = parseInt(m[1]!, 16);
      const hi = parseInt(m[2]!, 16);
      const dst = m[3]!;
      if (dst.startsWith("[")) {
        const items = [...dst.matchAll(/<([0-9A-Fa-f]+)>/g)].map((x) => hexToString(x[1]!));
        for (let c = lo; c <= hi; c++) map.set(c, items[c - lo] ?? "");
      } else {
        const base = hexToString(dst.slice(1, -1));
        const last = base.charCodeAt(base.length - 1);
        for (let c = lo; c <= hi; c++) map.set(c, base.slice(0, -1) + String.fromCharCode(last + (c - lo)));
      }
    }
  }
  return map;
}

function decodeShown(hex: string, cmap: Map<number, string>): string {
  const clean = hex.replace(/\s+/g, "");
  let out = "";
  for (let i = 0; i + 4 <= clean.length; i += 4) {
    const code = parseInt(clean.slice(i, i + 4), 16);
    const text = cmap.get(code);
    if (text === undefined) throw new Error(`pdf-text: glyph ${clean.slice(i, i + 4)} has no ToUnicode entry`);
    out += text;
  }
  return out;
}

/** Text of one content stream: text runs of one BT…ET block joined; blocks on a new baseline start a new line. */
function contentText(content: string, fonts: Map<string, Map<number, string>>): string {
  let out = "";
  let font: Map<number, string> | null = null;
  let lastY: number | null = null;
  for (const block of content.matchAll(/\bBT\b([\s\S]*?)\bET\b/g)) {
    const body = block[1]!;
    const tm = /([-\d.]+)\s+([-\d.]+)\s+Tm\b/.exec(body);
    const y: number | null = tm ? Number(tm[2]) : lastY;
    let text = "";
    const ops = /\/(\w+)\s+[-\d.]+\s+Tf\b|<([0-9A-Fa-f\s]*)>\s*Tj\b|\[((?:[^\]])*)\]\s*TJ\b|\(((?:\\.|[^\\)])*)\)\s*Tj\b/g;
    for (const op of body.matchAll(ops)) {
      if (op[1]) {
        font = fonts.get(op[1]) ?? null;
        if (!font) throw new Error(`pdf-text: font /${op[1]} has no ToUnicode map`);
      } else if (op[2] !== undefined) text += decodeShown(op[2], font!);
      else if (op[3] !== undefined) for (const s of op[3].matchAll(/<([0-9A-Fa-f\s]*)>/g)) text += decodeShown(s[1]!, font!);
      else if (op[4] !== undefined) throw new Error("pdf-text: literal-string text is not supported (Skia writes glyph ids as hex)");
    }
    if (!text) continue;
    out += out === "" ? "" : y !== null && lastY !== null && Math.abs(y - lastY) < 0.5 ? " " : "\n";
    out += text;
    lastY = y;
  }
  return out;
}

export function pdfText(pdf: Buffer): PdfText {
  const src = pdf.toString("latin1");
  if (!src.startsWith("%PDF-")) throw new Error("pdf-text: not a PDF");
  const objects = parseObjects(src);
  const get = (n: number) => {
    const o = objects.get(n);
    if (!o) throw new Error(`pdf-text: object ${n} is missing`);
    return o;
  };
  // Pages in document order: walk the page tree from the catalog.
  const catalog = [...objects.values()].find((o) => /\/Type\s*\/Catalog\b/.test(o.dict));
  if (!catalog) throw new Error("pdf-text: no catalog");
  const pageIds: number[] = [];
  const walk = (n: number) => {
    const node = get(n);
    if (/\/Type\s*\/Pages\b/.test(node.dict)) {
      const kids = /\/Kids\s*\[([^\]]*)\]/.exec(node.dict)?.[1] ?? "";
      for (const k of kids.matchAll(/(\d+) 0 R/g)) walk(Number(k[1]));
    } else pageIds.push(n);
  };
  walk(ref(catalog.dict, "Pages")!);

  const pages = pageIds.map((id) => {
    const page = get(id);
    const fonts = new Map<string, Map<number, string>>();
    const fontDict = /\/Font\s*<<([\s\S]*?)>>/.exec(page.dict)?.[1] ?? "";
    for (const f of fontDict.matchAll(/\/(\w+)\s+(\d+) 0 R/g)) {
      const toUnicode = ref(get(Number(f[2])).dict, "ToUnicode");
      if (toUnicode !== null) fonts.set(f[1]!, parseToUnicode(get(toUnicode).stream ?? ""));
    }
    const contents = /\/Contents\s*(\[[^\]]*\]|\d+ 0 R)/.exec(page.dict)?.[1] ?? "";
    return [...contents.matchAll(/(\d+) 0 R/g)].map((c) => contentText(get(Number(c[1])).stream ?? "", fonts)).join("\n");
  });
  return { pages, text: pages.join("\f") };
}
