"""Errors of the LLM layer survive pickling (multiprocessing pools, executors), with their attributes.

An exception is unpickled by calling its class with ``self.args``; ours take keyword-only or several
arguments and build the message themselves, so that would fail (and a pool waiting on the result
would hang). :class:`PicklableError` rebuilds the instance from its message and attributes instead.
"""
from __future__ import annotations

from typing import Any

from auditflow.errors import AuditflowError


def _restore(cls: type, message: str, state: dict[str, Any]) -> BaseException:
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    err.__dict__.update(state)
    return err


class PicklableError(AuditflowError):
    """Base of the LLM layer's errors: pickles as (class, message, attributes)."""

    def __reduce__(self):
        return (_restore, (type(self), str(self), dict(self.__dict__)))


class ModelCallError(PicklableError):
    """A model that could not answer: a remote endpoint still failing after its retries, or the local model
    failing. The LLM call cache marks a case cut short by one, and a case that meets one ends with the S label
    (a model that gave no answer, not an input error of the case)."""
