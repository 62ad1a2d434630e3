// Which objects are the library's own, for the callers that trust what a component says about
// itself (the verdict cache's key, the ingest context gate). Each component folder keeps one
// private registry (a WeakMap nobody else can write) and brands its classes' instances from their
// constructors; callers ask that folder, never `instanceof` against every class. A brand holds
// only for an instance of exactly the branded class, while its prototype is the one it was built
// with and no own property shadows a method or accessor of its class: a replaced `check` or
// `identity` means the object no longer behaves as its class says.

/** True when an own property of `value` shadows a method or accessor its prototype chain defines. */
function shadowsItsClass(value: object, prototype: object): boolean {
  return Object.getOwnPropertyNames(value).some((name) => {
    for (let p: object | null = prototype; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const described = Object.getOwnPropertyDescriptor(p, name);
      if (described !== undefined) return typeof described.value === "function" || described.get !== undefined;
    }
    return false;
  });
}

/** A new, empty registry of the brands of one kind of component; keep it private to the module that brands. */
export function brandRegistry<Kind extends string>() {
  // The prototype of an instance of exactly the branded class; null for a subclass's instance.
  const brands = new WeakMap<object, { readonly kind: Kind; readonly prototype: object | null }>();
  return Object.freeze({
    /** Brands `instance` as `kind`; `exact` only when `new.target` is the class itself (a subclass may change behaviour). */
    brand(instance: object, kind: Kind, exact: boolean): void {
      brands.set(instance, { kind, prototype: exact ? Object.getPrototypeOf(instance) : null });
    },
    /** The kind `value` was built as (subclasses included), or null for anything else. */
    kindOf(value: unknown): Kind | null {
      return typeof value === "object" && value !== null ? (brands.get(value)?.kind ?? null) : null;
    },
    /** True for an instance of exactly the library's `kind` class, unmodified since it was built. */
    isOwn(value: unknown, kind: Kind): boolean {
      if (typeof value !== "object" || value === null) return false;
      const brand = brands.get(value);
      return (
        brand !== undefined &&
        brand.kind === kind &&
        brand.prototype !== null &&
        Object.getPrototypeOf(value) === brand.prototype &&
        !shadowsItsClass(value, brand.prototype)
      );
    },
  });
}
