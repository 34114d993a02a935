package io.kvrouter.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Supplier;

/**
 * A Python generator or iterator: what {@code map}, {@code select}, {@code reject}, {@code
 * selectattr}, {@code rejectattr}, {@code unique}, {@code batch} and {@code items} return ({@code
 * generator}), and {@code reverse} of a list, tuple, range or dict. Lazy (its body runs when the
 * first item is asked for, so its errors too) and single-pass: iterating consumes it. It is always
 * truthy, has no length, is neither subscriptable nor JSON-serializable, and printing it would
 * print a memory address, which fails as Unsupported.
 */
final class PyIterator implements Iterator<Object> {
  private final String typeName;
  private Supplier<Iterator<?>> body;
  private Iterator<?> items;

  private PyIterator(String typeName, Supplier<Iterator<?>> body) {
    this.typeName = typeName;
    this.body = body;
  }

  /** A generator function's result: {@code body} runs at the first {@code next()}. */
  static PyIterator generator(Supplier<Iterator<?>> body) {
    return new PyIterator("generator", body);
  }

  /** An iterator of Python type {@code typeName} over {@code items}. */
  static PyIterator over(String typeName, List<?> items) {
    return new PyIterator(typeName, items::iterator);
  }

  String typeName() {
    return typeName;
  }

  private Iterator<?> items() {
    if (items == null) {
      items = body.get();
      body = null;
    }
    return items;
  }

  @Override
  public boolean hasNext() {
    return items().hasNext();
  }

  @Override
  public Object next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return items().next();
  }

  /** The items not consumed yet, consuming them. */
  List<Object> drain() {
    List<Object> r = new ArrayList<>();
    items().forEachRemaining(r::add);
    return r;
  }

  static Iterator<Object> empty() {
    return Collections.emptyIterator();
  }

  @Override
  public String toString() {
    return "<" + typeName + " object>";
  }
}
