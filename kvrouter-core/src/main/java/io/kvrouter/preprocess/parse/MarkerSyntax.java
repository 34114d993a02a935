package io.kvrouter.preprocess.parse;

/** A syntax whose tool calls start at a fixed marker, anywhere in the content. */
abstract class MarkerSyntax implements ToolCallSyntax {
  private final String marker;

  MarkerSyntax(String marker) {
    this.marker = marker;
  }

  @Override
  public int start(String text, boolean afterContent) {
    return text.indexOf(marker);
  }

  @Override
  public int held(String text, boolean afterContent) {
    return HeldText.partialMarkerAtEnd(text, marker);
  }

  /** {@code section} without the marker it starts with. */
  String afterMarker(String section) {
    return section.substring(marker.length());
  }
}
