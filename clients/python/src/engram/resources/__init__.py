"""The namespaced methods of the clients: ``client.containers``, ``client.documents``, ``client.memories``."""

from .containers import AsyncContainers, Containers
from .documents import AsyncDocuments, Documents
from .memories import AsyncMemories, Memories

__all__ = [
    "Containers",
    "AsyncContainers",
    "Documents",
    "AsyncDocuments",
    "Memories",
    "AsyncMemories",
]
