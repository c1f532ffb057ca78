"""Exceptions for mistakes a user can make: each message is one line that names the file, word or
setting at fault and says what to do about it. The command line prints it and exits with status 2."""


class CourseError(Exception):
    """Base class of every error caused by input or settings (not by a bug in the course)."""


def refusal(error: Exception) -> str:
    """What the command line says of a refusal after ``error: ``: a :class:`CourseError`'s message, or
    an ``OSError``'s file and reason."""
    if isinstance(error, OSError) and not isinstance(error, CourseError):
        where = f"{error.filename} " if getattr(error, "filename", None) else ""
        return f"{where}{error.strerror or error}"
    return str(error)


class CorpusNotFoundError(CourseError, FileNotFoundError):
    """A corpus path does not exist."""


class UnknownCorpusError(CourseError, ValueError):
    """A corpus name is neither a named corpus nor an existing path."""


class EmptyCorpusError(CourseError, ValueError):
    """A corpus file or folder holds no words after tokenisation."""


class CorpusDecodeError(CourseError, UnicodeError):
    """A corpus file is not valid UTF-8."""


class EmptyVocabularyError(CourseError, ValueError):
    """No word survives ``min_count``."""


class WordNotInVocabularyError(CourseError, KeyError):
    """A word that the vocabulary or the vectors do not contain."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class EvaluationFileError(CourseError, ValueError):
    """An evaluation file (analogies or word pairs) is missing or has a malformed line."""


class VectorsFileError(CourseError, ValueError):
    """A vectors file is missing, truncated or not in word2vec format."""


class DownloadError(CourseError, OSError):
    """A download failed (network, HTTP status, or checksum)."""


class ChecksumError(DownloadError):
    """A downloaded file does not have the expected size or SHA-256."""


class OutputFileError(CourseError, OSError):
    """An output file cannot be written where it was asked for (a folder, a read-only folder, ...)."""


class SettingError(CourseError, ValueError):
    """A setting has a value that makes no sense (a negative count, an unknown profile, ...)."""


class TrainingDivergedError(CourseError, ArithmeticError):
    """The training loss became infinite or NaN (a learning rate or batch too large)."""


class ModelFileError(CourseError, ValueError):
    """A model file is missing, truncated, or not one this course wrote."""


class ProbeFileError(CourseError, ValueError):
    """A probe file (``word<TAB>sense<TAB>sentence``) is missing or has a malformed line."""


class NotebookFileError(CourseError, ValueError):
    """A notebook file is missing, not valid JSON, or not a Jupyter notebook."""


class AssignmentMarkerError(CourseError, ValueError):
    """An assignment marker (``### BEGIN SOLUTION`` and the like) without its partner, or in the wrong cell."""


class GradingError(CourseError, RuntimeError):
    """A notebook that matches no teacher's notebook, a folder of teacher's notebooks that is not one, or a
    grade refused because something the grade depends on changed while grading."""
