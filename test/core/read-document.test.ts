// Why a document file could not be read, in words a user can act on: the errno code is kept (a
// script may match it), and the few a read meets most say what they mean.
import { describe, expect, it } from "vitest";
import { fileReasonWords } from "../../src/core/read-document.js";
import { StrictFileError } from "../../src/core/strict-json-stream.js";

describe("fileReasonWords", () => {
  it("names a missing file and a special file, explains the common errno codes and keeps any other as it is", () => {
    expect(fileReasonWords(new StrictFileError("not_found"))).toBe("file not found");
    expect(fileReasonWords(new StrictFileError("not_a_file"))).toBe("not a regular file");
    expect(fileReasonWords(new StrictFileError("EACCES"))).toBe("EACCES: no permission to read it");
    expect(fileReasonWords(new StrictFileError("ENOTDIR"))).toBe("ENOTDIR: a part of its path is not a directory");
    expect(fileReasonWords(new StrictFileError("EMFILE"))).toBe("EMFILE");
    expect(fileReasonWords(Object.assign(new Error("x"), { code: "EACCES" }))).toBe("EACCES: no permission to read it");
  });
});
