"""One subpackage per paper the book studies; a study may import the library and the experiment
infrastructure, never another study nor the book machinery."""
