// The OpenAPI document of what `runanywhere serve` serves, at `GET /openapi.json`. Shapes follow
// OpenAI's API reference (openai/openai-openapi), trimmed to what the server supports; optional
// request fields are nullable because the server treats null as absent, and ignored fields
// carry no type. The server adds the offered model ids as each request's `model` enum.

/// The server's OpenAPI 3.0.3 document.
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.0.3",
          "info": {
            "title": "RunAnywhere Server API",
            "version": "0.1.0",
            "description": "OpenAI-compatible API served by `runanywhere serve`. Request and response shapes follow the OpenAI API reference, trimmed to what this server supports. Unknown request fields are ignored."
          },
          "tags": [
            {
              "name": "Models"
            },
            {
              "name": "Chat"
            },
            {
              "name": "Completions"
            },
            {
              "name": "Embeddings"
            },
            {
              "name": "Audio"
            },
            {
              "name": "Server"
            }
          ],
          "paths": {
            "/health": {
              "get": {
                "operationId": "getHealth",
                "tags": [
                  "Server"
                ],
                "summary": "Liveness check.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/HealthResponse"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "getMetrics",
                "tags": [
                  "Server"
                ],
                "summary": "Prometheus metrics.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "Prometheus text exposition format.",
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "getOpenAPI",
                "tags": [
                  "Server"
                ],
                "summary": "This OpenAPI document.",
                "security": [],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/v1/models": {
              "get": {
                "operationId": "listModels",
                "tags": [
                  "Models"
                ],
                "summary": "Lists the loaded models.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ListModelsResponse"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  }
                }
              }
            },
            "/v1/models/{model}": {
              "get": {
                "operationId": "retrieveModel",
                "tags": [
                  "Models"
                ],
                "summary": "Retrieves a loaded model.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "parameters": [
                  {
                    "in": "path",
                    "name": "model",
                    "required": true,
                    "schema": {
                      "type": "string"
                    },
                    "description": "The ID of the model."
                  }
                ],
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Model"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  }
                }
              }
            },
            "/v1/chat/completions": {
              "post": {
                "operationId": "createChatCompletion",
                "tags": [
                  "Chat"
                ],
                "summary": "Creates a model response for the given chat conversation.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/CreateChatCompletionRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "A chat completion, or a stream of chunks when `stream` is true.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/CreateChatCompletionResponse"
                        }
                      },
                      "text/event-stream": {
                        "schema": {
                          "$ref": "#/components/schemas/ChatCompletionStreamEvent"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManyRequests"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  },
                  "503": {
                    "$ref": "#/components/responses/ServiceUnavailable"
                  }
                }
              }
            },
            "/v1/completions": {
              "post": {
                "operationId": "createCompletion",
                "tags": [
                  "Completions"
                ],
                "summary": "Creates a completion for the provided prompt (legacy).",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/CreateCompletionRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "A completion, or a stream of chunks when `stream` is true.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/CreateCompletionResponse"
                        }
                      },
                      "text/event-stream": {
                        "schema": {
                          "$ref": "#/components/schemas/CompletionStreamEvent"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManyRequests"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  },
                  "503": {
                    "$ref": "#/components/responses/ServiceUnavailable"
                  }
                }
              }
            },
            "/v1/embeddings": {
              "post": {
                "operationId": "createEmbedding",
                "tags": [
                  "Embeddings"
                ],
                "summary": "Creates embedding vectors for the input text.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/CreateEmbeddingRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "OK",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/CreateEmbeddingResponse"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManyRequests"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  },
                  "503": {
                    "$ref": "#/components/responses/ServiceUnavailable"
                  }
                }
              }
            },
            "/v1/audio/transcriptions": {
              "post": {
                "operationId": "createTranscription",
                "tags": [
                  "Audio"
                ],
                "summary": "Transcribes audio into the input language.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "multipart/form-data": {
                      "schema": {
                        "$ref": "#/components/schemas/CreateTranscriptionRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "`json` and `verbose_json` return JSON; `text`, `srt` and `vtt` return plain text.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "oneOf": [
                            {
                              "$ref": "#/components/schemas/CreateTranscriptionResponseJson"
                            },
                            {
                              "$ref": "#/components/schemas/CreateTranscriptionResponseVerboseJson"
                            }
                          ]
                        }
                      },
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManyRequests"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  },
                  "503": {
                    "$ref": "#/components/responses/ServiceUnavailable"
                  }
                }
              }
            },
            "/v1/audio/speech": {
              "post": {
                "operationId": "createSpeech",
                "tags": [
                  "Audio"
                ],
                "summary": "Generates audio from the input text.",
                "security": [
                  {
                    "bearerAuth": []
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/CreateSpeechRequest"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The audio: WAV, or raw 16-bit little-endian mono PCM.",
                    "content": {
                      "audio/wav": {
                        "schema": {
                          "type": "string",
                          "format": "binary"
                        }
                      },
                      "audio/pcm": {
                        "schema": {
                          "type": "string",
                          "format": "binary"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManyRequests"
                  },
                  "500": {
                    "$ref": "#/components/responses/InternalServerError"
                  },
                  "503": {
                    "$ref": "#/components/responses/ServiceUnavailable"
                  }
                }
              }
            }
          },
          "components": {
            "securitySchemes": {
              "bearerAuth": {
                "type": "http",
                "scheme": "bearer",
                "description": "The server's API key, sent as `Authorization: Bearer <key>`."
              }
            },
            "responses": {
              "BadRequest": {
                "description": "Invalid request (`invalid_request_error`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "Unauthorized": {
                "description": "Missing or invalid API key (`invalid_api_key`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "NotFound": {
                "description": "Unknown model (`model_not_found`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "PayloadTooLarge": {
                "description": "Request body too large (`request_too_large`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "TooManyRequests": {
                "description": "Too many requests are queued for this kind of model.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                },
                "headers": {
                  "Retry-After": {
                    "description": "Seconds to wait before retrying.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1
                    }
                  }
                }
              },
              "InternalServerError": {
                "description": "Inference failed (`server_error`).",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                }
              },
              "ServiceUnavailable": {
                "description": "The model is still loading.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ErrorResponse"
                    }
                  }
                },
                "headers": {
                  "Retry-After": {
                    "description": "Seconds to wait before retrying.",
                    "schema": {
                      "type": "integer",
                      "minimum": 1
                    }
                  }
                }
              }
            },
            "schemas": {
              "Error": {
                "type": "object",
                "required": [
                  "message",
                  "type",
                  "param",
                  "code"
                ],
                "properties": {
                  "message": {
                    "type": "string"
                  },
                  "type": {
                    "type": "string"
                  },
                  "param": {
                    "type": "string",
                    "nullable": true
                  },
                  "code": {
                    "type": "string",
                    "nullable": true
                  }
                }
              },
              "ErrorResponse": {
                "type": "object",
                "required": [
                  "error"
                ],
                "properties": {
                  "error": {
                    "$ref": "#/components/schemas/Error"
                  }
                }
              },
              "Model": {
                "type": "object",
                "title": "Model",
                "description": "A model loaded by this server.",
                "required": [
                  "id",
                  "object",
                  "created",
                  "owned_by"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "description": "The model identifier, used as `model` in requests."
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "model"
                    ]
                  },
                  "created": {
                    "type": "integer",
                    "description": "Unix timestamp (seconds)."
                  },
                  "owned_by": {
                    "type": "string"
                  },
                  "capabilities": {
                    "type": "array",
                    "description": "RunAnywhere extension: endpoints this model serves, e.g. `chat`, `completions`, `embeddings`, `transcription`, `speech`.",
                    "items": {
                      "type": "string"
                    }
                  }
                }
              },
              "ListModelsResponse": {
                "type": "object",
                "required": [
                  "object",
                  "data"
                ],
                "properties": {
                  "object": {
                    "type": "string",
                    "enum": [
                      "list"
                    ]
                  },
                  "data": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Model"
                    }
                  }
                }
              },
              "ChatCompletionRequestMessageContentPartText": {
                "type": "object",
                "title": "Text content part",
                "required": [
                  "type",
                  "text"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "text"
                    ]
                  },
                  "text": {
                    "type": "string"
                  }
                }
              },
              "ChatCompletionRequestMessageContentPartImage": {
                "type": "object",
                "title": "Image content part",
                "description": "Rejected with 400 unless the model accepts images.",
                "required": [
                  "type",
                  "image_url"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "image_url"
                    ]
                  },
                  "image_url": {
                    "type": "object",
                    "required": [
                      "url"
                    ],
                    "properties": {
                      "url": {
                        "type": "string",
                        "description": "A URL or a base64 data URL of the image."
                      },
                      "detail": {
                        "type": "string",
                        "enum": [
                          "auto",
                          "low",
                          "high",
                          null
                        ],
                        "default": "auto",
                        "nullable": true
                      }
                    }
                  }
                }
              },
              "ChatCompletionRequestUserMessageContentPart": {
                "oneOf": [
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartText"
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartImage"
                  }
                ]
              },
              "ChatCompletionRequestSystemMessage": {
                "type": "object",
                "title": "System message",
                "required": [
                  "role",
                  "content"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "system"
                    ]
                  },
                  "content": {
                    "description": "The contents of the system message.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "Text content"
                      },
                      {
                        "type": "array",
                        "title": "Array of content parts",
                        "minItems": 1,
                        "items": {
                          "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartText"
                        }
                      }
                    ]
                  },
                  "name": {
                    "description": "Accepted and ignored. OpenAI: string, an optional name for the participant."
                  }
                }
              },
              "ChatCompletionRequestDeveloperMessage": {
                "type": "object",
                "title": "Developer message",
                "description": "Treated as a system message.",
                "required": [
                  "role",
                  "content"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "developer"
                    ]
                  },
                  "content": {
                    "description": "The contents of the developer message.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "Text content"
                      },
                      {
                        "type": "array",
                        "title": "Array of content parts",
                        "minItems": 1,
                        "items": {
                          "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartText"
                        }
                      }
                    ]
                  },
                  "name": {
                    "description": "Accepted and ignored. OpenAI: string, an optional name for the participant."
                  }
                }
              },
              "ChatCompletionRequestUserMessage": {
                "type": "object",
                "title": "User message",
                "required": [
                  "role",
                  "content"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "user"
                    ]
                  },
                  "content": {
                    "description": "The contents of the user message.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "Text content"
                      },
                      {
                        "type": "array",
                        "title": "Array of content parts",
                        "minItems": 1,
                        "items": {
                          "$ref": "#/components/schemas/ChatCompletionRequestUserMessageContentPart"
                        }
                      }
                    ]
                  },
                  "name": {
                    "description": "Accepted and ignored. OpenAI: string, an optional name for the participant."
                  }
                }
              },
              "ChatCompletionMessageToolCall": {
                "type": "object",
                "title": "Function tool call",
                "required": [
                  "id",
                  "type",
                  "function"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "description": "The ID of the tool call."
                  },
                  "type": {
                    "type": "string",
                    "enum": [
                      "function"
                    ]
                  },
                  "function": {
                    "type": "object",
                    "required": [
                      "name",
                      "arguments"
                    ],
                    "properties": {
                      "name": {
                        "type": "string"
                      },
                      "arguments": {
                        "type": "string",
                        "description": "The arguments to call the function with, as a JSON string."
                      }
                    }
                  }
                }
              },
              "ChatCompletionMessageToolCalls": {
                "type": "array",
                "description": "The tool calls generated by the model.",
                "items": {
                  "$ref": "#/components/schemas/ChatCompletionMessageToolCall"
                }
              },
              "ChatCompletionRequestAssistantMessage": {
                "type": "object",
                "title": "Assistant message",
                "required": [
                  "role"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "assistant"
                    ]
                  },
                  "content": {
                    "description": "The contents of the assistant message. May be null when `tool_calls` is set.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "Text content",
                        "nullable": true
                      },
                      {
                        "type": "array",
                        "title": "Array of content parts",
                        "minItems": 1,
                        "items": {
                          "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartText"
                        }
                      }
                    ]
                  },
                  "refusal": {
                    "type": "string",
                    "nullable": true
                  },
                  "name": {
                    "description": "Accepted and ignored. OpenAI: string, an optional name for the participant."
                  },
                  "tool_calls": {
                    "type": "array",
                    "nullable": true,
                    "description": "The tool calls generated by the model.",
                    "items": {
                      "$ref": "#/components/schemas/ChatCompletionMessageToolCall"
                    }
                  }
                }
              },
              "ChatCompletionRequestToolMessage": {
                "type": "object",
                "title": "Tool message",
                "required": [
                  "role",
                  "content",
                  "tool_call_id"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "tool"
                    ]
                  },
                  "content": {
                    "description": "The contents of the tool message.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "Text content"
                      },
                      {
                        "type": "array",
                        "title": "Array of content parts",
                        "minItems": 1,
                        "items": {
                          "$ref": "#/components/schemas/ChatCompletionRequestMessageContentPartText"
                        }
                      }
                    ]
                  },
                  "tool_call_id": {
                    "type": "string",
                    "description": "Tool call that this message is responding to."
                  }
                }
              },
              "ChatCompletionRequestMessage": {
                "oneOf": [
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestDeveloperMessage"
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestSystemMessage"
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestUserMessage"
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestAssistantMessage"
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionRequestToolMessage"
                  }
                ]
              },
              "ResponseFormatText": {
                "type": "object",
                "title": "Text",
                "required": [
                  "type"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "text"
                    ]
                  }
                }
              },
              "ResponseFormatJsonObject": {
                "type": "object",
                "title": "JSON object",
                "required": [
                  "type"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "json_object"
                    ]
                  }
                }
              },
              "ResponseFormatJsonSchema": {
                "type": "object",
                "title": "JSON schema",
                "required": [
                  "type",
                  "json_schema"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "json_schema"
                    ]
                  },
                  "json_schema": {
                    "type": "object",
                    "required": [
                      "name"
                    ],
                    "properties": {
                      "name": {
                        "type": "string",
                        "description": "The name of the response format."
                      },
                      "description": {
                        "description": "Accepted and ignored. OpenAI: string."
                      },
                      "schema": {
                        "type": "object",
                        "nullable": true,
                        "additionalProperties": true,
                        "description": "The JSON Schema the output must match."
                      },
                      "strict": {
                        "type": "boolean",
                        "default": false,
                        "nullable": true
                      }
                    }
                  }
                }
              },
              "FunctionObject": {
                "type": "object",
                "required": [
                  "name"
                ],
                "properties": {
                  "name": {
                    "type": "string",
                    "description": "The name of the function to be called."
                  },
                  "description": {
                    "type": "string",
                    "nullable": true
                  },
                  "parameters": {
                    "type": "object",
                    "nullable": true,
                    "additionalProperties": true,
                    "description": "The function's parameters as a JSON Schema object. Omitted means no parameters."
                  },
                  "strict": {
                    "description": "Accepted and ignored. OpenAI: boolean, default false, nullable."
                  }
                }
              },
              "ChatCompletionTool": {
                "type": "object",
                "title": "Function tool",
                "required": [
                  "type",
                  "function"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "function"
                    ]
                  },
                  "function": {
                    "$ref": "#/components/schemas/FunctionObject"
                  }
                }
              },
              "ChatCompletionNamedToolChoice": {
                "type": "object",
                "title": "Function tool choice",
                "required": [
                  "type",
                  "function"
                ],
                "properties": {
                  "type": {
                    "type": "string",
                    "enum": [
                      "function"
                    ]
                  },
                  "function": {
                    "type": "object",
                    "required": [
                      "name"
                    ],
                    "properties": {
                      "name": {
                        "type": "string"
                      }
                    }
                  }
                }
              },
              "ChatCompletionToolChoiceOption": {
                "description": "`none`: no tool call. `auto`: the model may call tools. `required`: the model must call one or more tools. A named function forces that tool.",
                "oneOf": [
                  {
                    "type": "string",
                    "title": "Tool choice mode",
                    "enum": [
                      "none",
                      "auto",
                      "required",
                      null
                    ],
                    "nullable": true
                  },
                  {
                    "$ref": "#/components/schemas/ChatCompletionNamedToolChoice"
                  }
                ]
              },
              "CreateChatCompletionRequest": {
                "type": "object",
                "required": [
                  "model",
                  "messages"
                ],
                "additionalProperties": true,
                "properties": {
          "ignore_eos": {
            "type": "boolean",
            "nullable": true,
            "description": "Extension (as llama-server): keep generating past end-of-sequence, for benchmarks."
          },
                  "model": {
                    "type": "string",
                    "description": "ID of a loaded model (see `GET /v1/models`)."
                  },
                  "messages": {
                    "type": "array",
                    "minItems": 1,
                    "description": "The conversation so far.",
                    "items": {
                      "$ref": "#/components/schemas/ChatCompletionRequestMessage"
                    }
                  },
                  "stream": {
                    "type": "boolean",
                    "default": false,
                    "nullable": true,
                    "description": "Stream partial results as server-sent events, terminated by `data: [DONE]`."
                  },
                  "stream_options": {
                    "type": "object",
                    "nullable": true,
                    "description": "Options for streaming responses. Only allowed when `stream` is true.",
                    "properties": {
                      "include_usage": {
                        "type": "boolean",
                        "nullable": true,
                        "description": "If set, an extra chunk with an empty `choices` array and the request's `usage` is streamed before `data: [DONE]`; every other chunk carries `usage: null`."
                      }
                    }
                  },
                  "max_tokens": {
                    "type": "integer",
                    "minimum": 1,
                    "nullable": true,
                    "deprecated": true,
                    "description": "Maximum number of tokens to generate. Deprecated in favour of `max_completion_tokens`."
                  },
                  "max_completion_tokens": {
                    "type": "integer",
                    "minimum": 1,
                    "nullable": true,
                    "description": "Upper bound on the number of generated tokens."
                  },
                  "temperature": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 2,
                    "default": 1,
                    "nullable": true,
                    "description": "Sampling temperature between 0 and 2."
                  },
                  "top_p": {
                    "type": "number",
                    "minimum": 0,
                    "exclusiveMinimum": true,
                    "maximum": 1,
                    "default": 1,
                    "nullable": true,
                    "description": "Nucleus sampling probability mass, in (0, 1]."
                  },
                  "seed": {
                    "type": "integer",
                    "format": "int64",
                    "minimum": -9223372036854775808,
                    "maximum": 9223372036854775807,
                    "nullable": true,
                    "description": "Best-effort deterministic sampling."
                  },
                  "stop": {
                    "description": "Up to 4 non-empty sequences where generation stops. The returned text does not contain the stop sequence.",
                    "oneOf": [
                      {
                        "type": "string",
                        "minLength": 1,
                        "nullable": true
                      },
                      {
                        "type": "array",
                        "maxItems": 4,
                        "items": {
                          "type": "string",
                          "minLength": 1
                        }
                      }
                    ]
                  },
                  "n": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1,
                    "default": 1,
                    "nullable": true,
                    "description": "Number of choices to generate. Only 1 is supported."
                  },
                  "response_format": {
                    "description": "`json_object` or `json_schema` constrain the output to JSON. Null means `text`.",
                    "oneOf": [
                      {
                        "$ref": "#/components/schemas/ResponseFormatText"
                      },
                      {
                        "$ref": "#/components/schemas/ResponseFormatJsonObject"
                      },
                      {
                        "$ref": "#/components/schemas/ResponseFormatJsonSchema"
                      },
                      {
                        "type": "object",
                        "title": "null",
                        "nullable": true,
                        "enum": [
                          null
                        ]
                      }
                    ]
                  },
                  "tools": {
                    "type": "array",
                    "nullable": true,
                    "description": "Functions the model may call.",
                    "items": {
                      "$ref": "#/components/schemas/ChatCompletionTool"
                    }
                  },
                  "tool_choice": {
                    "$ref": "#/components/schemas/ChatCompletionToolChoiceOption"
                  },
                  "parallel_tool_calls": {
                    "description": "Accepted and ignored. OpenAI: boolean, default true."
                  },
                  "frequency_penalty": {
                    "description": "Accepted and ignored. OpenAI: number between -2 and 2, nullable."
                  },
                  "presence_penalty": {
                    "description": "Accepted and ignored. OpenAI: number between -2 and 2, nullable."
                  },
                  "logit_bias": {
                    "description": "Accepted and ignored. OpenAI: object mapping token IDs to integer biases, nullable."
                  },
                  "user": {
                    "description": "Accepted and ignored. OpenAI: string."
                  }
                }
              },
              "CompletionUsage": {
                "type": "object",
                "description": "Usage statistics for the request.",
                "required": [
                  "prompt_tokens",
                  "completion_tokens",
                  "total_tokens"
                ],
                "properties": {
                  "prompt_tokens": {
                    "type": "integer"
                  },
                  "completion_tokens": {
                    "type": "integer"
                  },
                  "total_tokens": {
                    "type": "integer"
                  }
                }
              },
              "ChatCompletionResponseMessage": {
                "type": "object",
                "required": [
                  "role",
                  "content",
                  "refusal"
                ],
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "assistant"
                    ]
                  },
                  "content": {
                    "type": "string",
                    "nullable": true
                  },
                  "refusal": {
                    "type": "string",
                    "nullable": true
                  },
                  "tool_calls": {
                    "$ref": "#/components/schemas/ChatCompletionMessageToolCalls"
                  }
                }
              },
              "CreateChatCompletionResponse": {
                "type": "object",
                "required": [
                  "id",
                  "object",
                  "created",
                  "model",
                  "choices",
                  "usage"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "chat.completion"
                    ]
                  },
                  "created": {
                    "type": "integer",
                    "description": "Unix timestamp (seconds)."
                  },
                  "model": {
                    "type": "string"
                  },
                  "system_fingerprint": {
                    "type": "string",
                    "nullable": true
                  },
                  "choices": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "index",
                        "message",
                        "finish_reason",
                        "logprobs"
                      ],
                      "properties": {
                        "index": {
                          "type": "integer"
                        },
                        "message": {
                          "$ref": "#/components/schemas/ChatCompletionResponseMessage"
                        },
                        "finish_reason": {
                          "type": "string",
                          "enum": [
                            "stop",
                            "length",
                            "tool_calls"
                          ]
                        },
                        "logprobs": {
                          "type": "object",
                          "nullable": true,
                          "description": "Always null: log probabilities are not returned."
                        }
                      }
                    }
                  },
                  "usage": {
                    "$ref": "#/components/schemas/CompletionUsage"
                  }
                }
              },
              "ChatCompletionMessageToolCallChunk": {
                "type": "object",
                "required": [
                  "index"
                ],
                "properties": {
                  "index": {
                    "type": "integer"
                  },
                  "id": {
                    "type": "string"
                  },
                  "type": {
                    "type": "string",
                    "enum": [
                      "function"
                    ]
                  },
                  "function": {
                    "type": "object",
                    "properties": {
                      "name": {
                        "type": "string"
                      },
                      "arguments": {
                        "type": "string"
                      }
                    }
                  }
                }
              },
              "ChatCompletionStreamResponseDelta": {
                "type": "object",
                "properties": {
                  "role": {
                    "type": "string",
                    "enum": [
                      "assistant"
                    ]
                  },
                  "content": {
                    "type": "string",
                    "nullable": true
                  },
                  "refusal": {
                    "type": "string",
                    "nullable": true
                  },
                  "tool_calls": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/ChatCompletionMessageToolCallChunk"
                    }
                  }
                }
              },
              "CreateChatCompletionStreamResponse": {
                "type": "object",
                "description": "One `data:` event of a streamed chat completion. The stream ends with `data: [DONE]`.",
                "required": [
                  "id",
                  "object",
                  "created",
                  "model",
                  "choices"
                ],
                "properties": {
                  "id": {
                    "type": "string",
                    "description": "Same for every chunk."
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "chat.completion.chunk"
                    ]
                  },
                  "created": {
                    "type": "integer",
                    "description": "Same for every chunk."
                  },
                  "model": {
                    "type": "string"
                  },
                  "system_fingerprint": {
                    "type": "string",
                    "nullable": true
                  },
                  "choices": {
                    "type": "array",
                    "description": "Empty on the final usage chunk.",
                    "items": {
                      "type": "object",
                      "required": [
                        "index",
                        "delta",
                        "finish_reason"
                      ],
                      "properties": {
                        "index": {
                          "type": "integer"
                        },
                        "delta": {
                          "$ref": "#/components/schemas/ChatCompletionStreamResponseDelta"
                        },
                        "finish_reason": {
                          "type": "string",
                          "enum": [
                            "stop",
                            "length",
                            "tool_calls",
                            null
                          ],
                          "nullable": true
                        },
                        "logprobs": {
                          "type": "object",
                          "nullable": true,
                          "description": "Always null: log probabilities are not returned."
                        }
                      }
                    }
                  },
                  "usage": {
                    "type": "object",
                    "nullable": true,
                    "description": "Present only with `stream_options.include_usage`: null except on the final chunk.",
                    "required": [
                      "prompt_tokens",
                      "completion_tokens",
                      "total_tokens"
                    ],
                    "properties": {
                      "prompt_tokens": {
                        "type": "integer"
                      },
                      "completion_tokens": {
                        "type": "integer"
                      },
                      "total_tokens": {
                        "type": "integer"
                      }
                    }
                  }
                }
              },
              "ChatCompletionStreamEvent": {
                "type": "object",
                "description": "One server-sent event. `data` holds a JSON `CreateChatCompletionStreamResponse` (see components/schemas); the last event's `data` is `[DONE]`.",
                "required": [
                  "data"
                ],
                "properties": {
                  "data": {
                    "type": "string"
                  },
                  "event": {
                    "type": "string"
                  }
                }
              },
              "CreateCompletionRequest": {
                "type": "object",
                "required": [
                  "model",
                  "prompt"
                ],
                "additionalProperties": true,
                "properties": {
                  "model": {
                    "type": "string",
                    "description": "ID of a loaded model (see `GET /v1/models`)."
                  },
                  "prompt": {
                    "description": "The prompt: a string, or an array holding exactly one string.",
                    "oneOf": [
                      {
                        "type": "string"
                      },
                      {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 1,
                        "items": {
                          "type": "string"
                        }
                      }
                    ]
                  },
                  "max_tokens": {
                    "type": "integer",
                    "minimum": 1,
                    "default": 16,
                    "nullable": true,
                    "description": "Maximum number of tokens to generate."
                  },
                  "temperature": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 2,
                    "default": 1,
                    "nullable": true,
                    "description": "Sampling temperature between 0 and 2."
                  },
                  "top_p": {
                    "type": "number",
                    "minimum": 0,
                    "exclusiveMinimum": true,
                    "maximum": 1,
                    "default": 1,
                    "nullable": true,
                    "description": "Nucleus sampling probability mass, in (0, 1]."
                  },
                  "seed": {
                    "type": "integer",
                    "format": "int64",
                    "minimum": -9223372036854775808,
                    "maximum": 9223372036854775807,
                    "nullable": true,
                    "description": "Best-effort deterministic sampling."
                  },
                  "stop": {
                    "description": "Up to 4 non-empty sequences where generation stops. The returned text does not contain the stop sequence.",
                    "oneOf": [
                      {
                        "type": "string",
                        "minLength": 1,
                        "nullable": true
                      },
                      {
                        "type": "array",
                        "maxItems": 4,
                        "items": {
                          "type": "string",
                          "minLength": 1
                        }
                      }
                    ]
                  },
                  "n": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1,
                    "default": 1,
                    "nullable": true,
                    "description": "Number of choices to generate. Only 1 is supported."
                  },
                  "stream": {
                    "type": "boolean",
                    "default": false,
                    "nullable": true,
                    "description": "Stream partial results as server-sent events, terminated by `data: [DONE]`."
                  },
                  "stream_options": {
                    "type": "object",
                    "nullable": true,
                    "description": "Options for streaming responses. Only allowed when `stream` is true.",
                    "properties": {
                      "include_usage": {
                        "type": "boolean",
                        "nullable": true,
                        "description": "If set, an extra chunk with an empty `choices` array and the request's `usage` is streamed before `data: [DONE]`; every other chunk carries `usage: null`."
                      }
                    }
                  },
                  "echo": {
                    "type": "boolean",
                    "default": false,
                    "nullable": true,
                    "description": "Echo back the prompt in addition to the completion."
                  },
                  "suffix": {
                    "type": "string",
                    "nullable": true,
                    "enum": [
                      null
                    ],
                    "description": "Not supported: must be null or absent."
                  },
                  "best_of": {
                    "description": "Accepted and ignored. OpenAI: integer 0..20, nullable."
                  },
                  "logprobs": {
                    "description": "Accepted and ignored. OpenAI: integer 0..5, nullable; `logprobs` in choices is always null here."
                  },
                  "frequency_penalty": {
                    "description": "Accepted and ignored. OpenAI: number between -2 and 2, nullable."
                  },
                  "presence_penalty": {
                    "description": "Accepted and ignored. OpenAI: number between -2 and 2, nullable."
                  },
                  "logit_bias": {
                    "description": "Accepted and ignored. OpenAI: object mapping token IDs to integer biases, nullable."
                  },
                  "user": {
                    "description": "Accepted and ignored. OpenAI: string."
                  }
                }
              },
              "CreateCompletionResponse": {
                "type": "object",
                "required": [
                  "id",
                  "object",
                  "created",
                  "model",
                  "choices",
                  "usage"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "text_completion"
                    ]
                  },
                  "created": {
                    "type": "integer",
                    "description": "Unix timestamp (seconds)."
                  },
                  "model": {
                    "type": "string"
                  },
                  "system_fingerprint": {
                    "type": "string",
                    "nullable": true
                  },
                  "choices": {
                    "type": "array",
                    "items": {
                      "type": "object",
                      "required": [
                        "text",
                        "index",
                        "logprobs",
                        "finish_reason"
                      ],
                      "properties": {
                        "text": {
                          "type": "string"
                        },
                        "index": {
                          "type": "integer"
                        },
                        "logprobs": {
                          "type": "object",
                          "nullable": true,
                          "description": "Always null: log probabilities are not returned."
                        },
                        "finish_reason": {
                          "type": "string",
                          "enum": [
                            "stop",
                            "length"
                          ]
                        }
                      }
                    }
                  },
                  "usage": {
                    "$ref": "#/components/schemas/CompletionUsage"
                  }
                }
              },
              "CreateCompletionStreamResponse": {
                "type": "object",
                "description": "One `data:` event of a streamed completion. The stream ends with `data: [DONE]`.",
                "required": [
                  "id",
                  "object",
                  "created",
                  "model",
                  "choices"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "text_completion"
                    ]
                  },
                  "created": {
                    "type": "integer"
                  },
                  "model": {
                    "type": "string"
                  },
                  "system_fingerprint": {
                    "type": "string",
                    "nullable": true
                  },
                  "choices": {
                    "type": "array",
                    "description": "Empty on the final usage chunk.",
                    "items": {
                      "type": "object",
                      "required": [
                        "text",
                        "index",
                        "logprobs",
                        "finish_reason"
                      ],
                      "properties": {
                        "text": {
                          "type": "string"
                        },
                        "index": {
                          "type": "integer"
                        },
                        "logprobs": {
                          "type": "object",
                          "nullable": true,
                          "description": "Always null: log probabilities are not returned."
                        },
                        "finish_reason": {
                          "type": "string",
                          "enum": [
                            "stop",
                            "length",
                            null
                          ],
                          "nullable": true
                        }
                      }
                    }
                  },
                  "usage": {
                    "type": "object",
                    "nullable": true,
                    "description": "Present only with `stream_options.include_usage`: null except on the final chunk.",
                    "required": [
                      "prompt_tokens",
                      "completion_tokens",
                      "total_tokens"
                    ],
                    "properties": {
                      "prompt_tokens": {
                        "type": "integer"
                      },
                      "completion_tokens": {
                        "type": "integer"
                      },
                      "total_tokens": {
                        "type": "integer"
                      }
                    }
                  }
                }
              },
              "CompletionStreamEvent": {
                "type": "object",
                "description": "One server-sent event. `data` holds a JSON `CreateCompletionStreamResponse` (see components/schemas); the last event's `data` is `[DONE]`.",
                "required": [
                  "data"
                ],
                "properties": {
                  "data": {
                    "type": "string"
                  },
                  "event": {
                    "type": "string"
                  }
                }
              },
              "CreateEmbeddingRequest": {
                "type": "object",
                "required": [
                  "model",
                  "input"
                ],
                "additionalProperties": true,
                "properties": {
                  "model": {
                    "type": "string",
                    "description": "ID of a loaded embedding model."
                  },
                  "input": {
                    "description": "Text to embed: a string or an array of strings.",
                    "oneOf": [
                      {
                        "type": "string",
                        "title": "string"
                      },
                      {
                        "type": "array",
                        "title": "array",
                        "minItems": 1,
                        "maxItems": 2048,
                        "items": {
                          "type": "string"
                        }
                      }
                    ]
                  },
                  "encoding_format": {
                    "type": "string",
                    "enum": [
                      "float",
                      "base64",
                      null
                    ],
                    "default": "float",
                    "nullable": true,
                    "description": "`float` or `base64` (little-endian float32 bytes)."
                  },
                  "dimensions": {
                    "type": "integer",
                    "minimum": 1,
                    "nullable": true,
                    "description": "Output dimensions. Only the model's own dimension count is accepted."
                  },
                  "user": {
                    "description": "Accepted and ignored. OpenAI: string."
                  }
                }
              },
              "Embedding": {
                "type": "object",
                "required": [
                  "index",
                  "object",
                  "embedding"
                ],
                "properties": {
                  "index": {
                    "type": "integer"
                  },
                  "object": {
                    "type": "string",
                    "enum": [
                      "embedding"
                    ]
                  },
                  "embedding": {
                    "description": "The vector: floats, or a base64 string when `encoding_format` is `base64`.",
                    "oneOf": [
                      {
                        "type": "array",
                        "items": {
                          "type": "number",
                          "format": "float"
                        }
                      },
                      {
                        "type": "string",
                        "format": "byte"
                      }
                    ]
                  }
                }
              },
              "CreateEmbeddingResponse": {
                "type": "object",
                "required": [
                  "object",
                  "data",
                  "model",
                  "usage"
                ],
                "properties": {
                  "object": {
                    "type": "string",
                    "enum": [
                      "list"
                    ]
                  },
                  "data": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Embedding"
                    }
                  },
                  "model": {
                    "type": "string"
                  },
                  "usage": {
                    "type": "object",
                    "required": [
                      "prompt_tokens",
                      "total_tokens"
                    ],
                    "properties": {
                      "prompt_tokens": {
                        "type": "integer"
                      },
                      "total_tokens": {
                        "type": "integer"
                      }
                    }
                  }
                }
              },
              "CreateTranscriptionRequest": {
                "type": "object",
                "required": [
                  "file",
                  "model"
                ],
                "additionalProperties": true,
                "properties": {
                  "file": {
                    "type": "string",
                    "format": "binary",
                    "description": "The audio file to transcribe."
                  },
                  "model": {
                    "type": "string",
                    "description": "ID of a loaded transcription model."
                  },
                  "language": {
                    "type": "string",
                    "description": "ISO-639-1 language of the audio, e.g. `en`."
                  },
                  "prompt": {
                    "type": "string",
                    "description": "Optional text to guide the transcription."
                  },
                  "response_format": {
                    "type": "string",
                    "enum": [
                      "json",
                      "text",
                      "srt",
                      "verbose_json",
                      "vtt"
                    ],
                    "default": "json"
                  },
                  "temperature": {
                    "type": "number",
                    "default": 0,
                    "description": "Sampling temperature."
                  },
                  "timestamp_granularities[]": {
                    "type": "array",
                    "description": "Timestamp detail for `verbose_json`: `segment` and/or `word`.",
                    "items": {
                      "type": "string",
                      "enum": [
                        "word",
                        "segment"
                      ]
                    },
                    "default": [
                      "segment"
                    ]
                  }
                }
              },
              "CreateTranscriptionResponseJson": {
                "type": "object",
                "description": "The `json` response format.",
                "required": [
                  "text"
                ],
                "additionalProperties": false,
                "properties": {
                  "text": {
                    "type": "string",
                    "description": "The transcribed text."
                  }
                }
              },
              "TranscriptionSegment": {
                "type": "object",
                "required": [
                  "id",
                  "seek",
                  "start",
                  "end",
                  "text",
                  "tokens",
                  "temperature",
                  "avg_logprob",
                  "compression_ratio",
                  "no_speech_prob"
                ],
                "properties": {
                  "id": {
                    "type": "integer"
                  },
                  "seek": {
                    "type": "integer"
                  },
                  "start": {
                    "type": "number",
                    "format": "double",
                    "description": "Start time in seconds."
                  },
                  "end": {
                    "type": "number",
                    "format": "double",
                    "description": "End time in seconds."
                  },
                  "text": {
                    "type": "string"
                  },
                  "tokens": {
                    "type": "array",
                    "items": {
                      "type": "integer"
                    }
                  },
                  "temperature": {
                    "type": "number",
                    "format": "float"
                  },
                  "avg_logprob": {
                    "type": "number",
                    "format": "float"
                  },
                  "compression_ratio": {
                    "type": "number",
                    "format": "float"
                  },
                  "no_speech_prob": {
                    "type": "number",
                    "format": "float"
                  }
                }
              },
              "TranscriptionWord": {
                "type": "object",
                "required": [
                  "word",
                  "start",
                  "end"
                ],
                "properties": {
                  "word": {
                    "type": "string"
                  },
                  "start": {
                    "type": "number",
                    "format": "double"
                  },
                  "end": {
                    "type": "number",
                    "format": "double"
                  }
                }
              },
              "CreateTranscriptionResponseVerboseJson": {
                "type": "object",
                "description": "The `verbose_json` response format.",
                "required": [
                  "language",
                  "duration",
                  "text"
                ],
                "properties": {
                  "task": {
                    "type": "string",
                    "enum": [
                      "transcribe"
                    ]
                  },
                  "language": {
                    "type": "string"
                  },
                  "duration": {
                    "type": "number",
                    "format": "double",
                    "description": "Audio duration in seconds."
                  },
                  "text": {
                    "type": "string"
                  },
                  "segments": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/TranscriptionSegment"
                    }
                  },
                  "words": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/TranscriptionWord"
                    }
                  }
                }
              },
              "CreateSpeechRequest": {
                "type": "object",
                "required": [
                  "model",
                  "input",
                  "voice"
                ],
                "additionalProperties": true,
                "properties": {
                  "model": {
                    "type": "string",
                    "description": "ID of a loaded speech model."
                  },
                  "input": {
                    "type": "string",
                    "maxLength": 4096,
                    "description": "The text to speak."
                  },
                  "voice": {
                    "type": "string",
                    "description": "The voice to use."
                  },
                  "response_format": {
                    "type": "string",
                    "enum": [
                      "mp3",
                      "opus",
                      "aac",
                      "flac",
                      "wav",
                      "pcm",
                      null
                    ],
                    "default": "wav",
                    "nullable": true,
                    "description": "Only `wav` and `pcm` are produced; the others are rejected with 400."
                  },
                  "speed": {
                    "type": "number",
                    "minimum": 0.25,
                    "maximum": 4,
                    "default": 1,
                    "nullable": true
                  },
                  "instructions": {
                    "description": "Accepted and ignored. OpenAI: string, maxLength 4096."
                  }
                }
              },
              "HealthResponse": {
                "type": "object",
                "required": [
                  "status"
                ],
                "properties": {
                  "status": {
                    "type": "string"
                  },
                  "models": {
                    "type": "array",
                    "items": {
                      "type": "string"
                    },
                    "description": "IDs of the loaded models."
                  }
                }
              }
            }
          }
        }
        """#
}
